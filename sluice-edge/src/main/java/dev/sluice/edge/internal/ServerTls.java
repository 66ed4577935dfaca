package dev.sluice.edge.internal;

import dev.sluice.edge.config.TlsConfig;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public listener's TLS (SPEC §3.1 transport): a server {@link SslContext} made from the PEM files of
 * {@code listen.tls}, offering {@code h2} then {@code http/1.1} by ALPN (RFC 7301; RFC 9113 §3.2), TLS 1.3
 * and 1.2 with the cipher suites HTTP/2 allows (RFC 9113 §9.2.2). OpenSSL (BoringSSL, from
 * {@code netty-tcnative-boringssl-static}) when its native library loads, the JDK's provider otherwise.
 *
 * <p>{@link #reload()} (called by the file watcher of {@link #watch()}) loads the pair again; new connections
 * get the new certificate, open ones keep theirs. A pair that does not load (unreadable, not PEM, a key that
 * is not the certificate's) leaves the previous one in force and is logged in one line.
 *
 * <p>Thread-safe.
 */
public final class ServerTls implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);

    private final TlsConfig config;
    private final long handshakeTimeoutMillis;
    private volatile Loaded current;
    private volatile ConfigWatcher watcher;

    /** A loaded pair: the context and the leaf certificate it serves. */
    private record Loaded(SslContext context, X509Certificate leaf) {
    }

    private ServerTls(TlsConfig config, Duration handshakeTimeout, Loaded first) {
        this.config = config;
        this.handshakeTimeoutMillis = Math.max(1, handshakeTimeout.toMillis());
        this.current = first;
    }

    /**
     * Loads {@code config}'s certificate and key.
     *
     * @param handshakeTimeout how long a client may take to complete its handshake before it is closed
     * @throws IllegalStateException naming the file and the reason when the pair cannot be used
     */
    public static ServerTls load(TlsConfig config, Duration handshakeTimeout) {
        try {
            ServerTls tls = new ServerTls(config, handshakeTimeout, build(config));
            LOG.info("listen.tls: serving {} ({}) through {}", subject(tls.current.leaf), config.certificate(),
                    provider());
            return tls;
        } catch (TlsFileException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** {@code OpenSSL} when netty-tcnative's BoringSSL loads (and supports ALPN), else {@code JDK}. */
    public static String provider() {
        return openSsl() ? "OpenSSL (" + OpenSsl.versionString() + ")" : "JDK";
    }

    private static boolean openSsl() {
        return OpenSsl.isAvailable() && SslProvider.isAlpnSupported(SslProvider.OPENSSL);
    }

    /** A handler for a new connection, with the certificate in force now. */
    public SslHandler newHandler(ByteBufAllocator alloc) {
        SslHandler h = current.context().newHandler(alloc);
        h.setHandshakeTimeout(handshakeTimeoutMillis, TimeUnit.MILLISECONDS);
        return h;
    }

    /** The leaf certificate new connections are served. */
    public X509Certificate certificate() {
        return current.leaf();
    }

    /**
     * Loads the files again.
     *
     * @return whether the new pair is now in force; when not, the previous one stays and one warning says why
     */
    public boolean reload() {
        try {
            Loaded next = build(config);
            current = next;
            LOG.info("listen.tls: loaded {} (valid until {}) from {}", subject(next.leaf()), next.leaf().getNotAfter()
                    .toInstant(), config.certificate());
            return true;
        } catch (TlsFileException | RuntimeException e) {
            LOG.warn("listen.tls: keeping the previous certificate", e);
            return false;
        }
    }

    /**
     * Reloads whenever the certificate or key file changes (on the watcher's thread, never an event loop).
     *
     * @throws IllegalStateException when the files' folders cannot be watched
     */
    public void watch() {
        watcher = ConfigWatcher.start(List.of(config.certificate(), config.privateKey()), this::reload);
    }

    @Override
    public void close() {
        ConfigWatcher w = watcher;
        if (w != null) {
            w.close();
        }
    }

    private static String subject(X509Certificate c) {
        return c.getSubjectX500Principal().getName();
    }

    /** A file of the pair that cannot be used; the message names it. */
    static final class TlsFileException extends Exception {
        TlsFileException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static Loaded build(TlsConfig config) throws TlsFileException {
        List<X509Certificate> chain = readCertificates(config.certificate(), "listen.tls.certificate");
        PrivateKey key = readPrivateKey(config.privateKey(), "listen.tls.private-key");
        checkPair(chain.get(0), key, config);
        try {
            SslContext context = SslContextBuilder.forServer(key, chain)
                    .sslProvider(openSsl() ? SslProvider.OPENSSL : SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                    .build();
            return new Loaded(context, chain.get(0));
        } catch (SSLException | IllegalArgumentException e) {
            throw new TlsFileException("listen.tls: " + config.certificate() + " with " + config.privateKey()
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * The X.509 certificates of a PEM file, in order (RFC 7468 §5), at least one.
     *
     * @throws TlsFileException naming {@code field} and the file when it is unreadable or has none
     */
    static List<X509Certificate> readCertificates(Path file, String field) throws TlsFileException {
        byte[] bytes = read(file, field);
        if (!new String(bytes, StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")) {
            throw new TlsFileException(field + ": " + file + " is not a PEM certificate (no BEGIN CERTIFICATE)", null);
        }
        try {
            List<X509Certificate> out = new ArrayList<>();
            CertificateFactory f = CertificateFactory.getInstance("X.509");
            for (var c : f.generateCertificates(new ByteArrayInputStream(bytes))) {
                out.add((X509Certificate) c);
            }
            if (out.isEmpty()) {
                throw new TlsFileException(field + ": " + file + " has no certificate", null);
            }
            return out;
        } catch (CertificateException | RuntimeException e) {
            throw new TlsFileException(field + ": " + file + " is not a valid PEM certificate: " + reason(e), e);
        }
    }

    /**
     * The unencrypted PKCS#8 private key ({@code BEGIN PRIVATE KEY}, RFC 5958 / RFC 7468 §10) of a PEM file:
     * RSA, EC, Ed25519 or Ed448.
     *
     * @throws TlsFileException naming {@code field} and the file when it has no such key
     */
    static PrivateKey readPrivateKey(Path file, String field) throws TlsFileException {
        String text = new String(read(file, field), StandardCharsets.US_ASCII);
        String begin = "-----BEGIN PRIVATE KEY-----";
        int start = text.indexOf(begin);
        int end = text.indexOf("-----END PRIVATE KEY-----");
        if (start < 0 || end < start) {
            String hint = text.contains("-----BEGIN RSA PRIVATE KEY-----") || text.contains("-----BEGIN EC PRIVATE KEY-----")
                    || text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")
                    ? " (convert it: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem)" : "";
            throw new TlsFileException(field + ": " + file + " is not an unencrypted PKCS#8 PEM key (BEGIN PRIVATE KEY)"
                    + hint, null);
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(text.substring(start + begin.length(), end));
        } catch (IllegalArgumentException e) {
            throw new TlsFileException(field + ": " + file + " is not valid base64 PEM: " + e.getMessage(), e);
        }
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException | RuntimeException e) {
                // next algorithm
            }
        }
        throw new TlsFileException(field + ": " + file + " holds no RSA, EC or EdDSA private key", null);
    }

    /** A signature made with {@code key} must verify with the certificate's public key: the two belong together. */
    private static void checkPair(X509Certificate leaf, PrivateKey key, TlsConfig config) throws TlsFileException {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            default -> null;
        };
        if (algorithm == null) {
            return; // the handshake will tell
        }
        try {
            byte[] probe = "sluice-edge key check".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(probe);
            byte[] signature = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(leaf.getPublicKey());
            v.update(probe);
            if (v.verify(signature)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // a key of another type than the certificate's: not a pair either
        }
        throw new TlsFileException("listen.tls.private-key: " + config.privateKey() + " is not the key of the certificate "
                + subject(leaf) + " in " + config.certificate(), null);
    }

    private static byte[] read(Path file, String field) throws TlsFileException {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new TlsFileException(field + ": cannot read " + file + ": " + reason(e), e);
        }
    }

    private static String reason(Throwable e) {
        // a FileSystemException's message is the file's name alone (NoSuchFileException: "/tmp/x.pem"), which
        // the caller already prints: say what went wrong instead
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException fse) {
            return fse.getReason() == null ? e.getClass().getSimpleName() : fse.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
