package dev.sluice.edge.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate (EC P-256, SHA-256 with ECDSA) made at test time, none being committed: written
 * as PEM files (the certificate, and the key in PKCS#8), with the JDK contexts a test client or a TLS
 * upstream needs.
 *
 * @param certificate the PEM certificate file
 * @param privateKey the PEM PKCS#8 key file
 * @param x509 the certificate
 * @param key its private key
 */
public record SelfSigned(Path certificate, Path privateKey, X509Certificate x509, PrivateKey key) {

    private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime() & 0xffff_ffffL);

    /**
     * A certificate for {@code cn} naming {@code dnsNames} and {@code ipAddresses} (subjectAltName, RFC 5280
     * §4.2.1.6), valid from an hour ago for a day, written to {@code folder/name.crt} and {@code folder/name.key}.
     */
    public static SelfSigned create(Path folder, String name, String cn, List<String> dnsNames,
            List<String> ipAddresses) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(256);
            KeyPair pair = g.generateKeyPair();
            X500Name subject = new X500Name("CN=" + cn);
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject,
                    BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(now.plus(Duration.ofDays(1))), subject, pair.getPublic());
            List<GeneralName> names = new ArrayList<>();
            dnsNames.forEach(d -> names.add(new GeneralName(GeneralName.dNSName, d)));
            ipAddresses.forEach(ip -> names.add(new GeneralName(GeneralName.iPAddress, ip)));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true)); // its own trust anchor
            X509Certificate cert = new JcaX509CertificateConverter()
                    .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
            Path crt = folder.resolve(name + ".crt");
            Path key = folder.resolve(name + ".key");
            Files.writeString(crt, pem("CERTIFICATE", cert.getEncoded()));
            Files.writeString(key, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
            return new SelfSigned(crt, key, cert, pair.getPrivate());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A certificate for {@code localhost} and {@code 127.0.0.1}. */
    public static SelfSigned localhost(Path folder, String name) {
        return create(folder, name, "localhost", List.of("localhost"), List.of("127.0.0.1"));
    }

    /** RFC 7468 text: the label's BEGIN line, base64 in 64-character lines, the END line. */
    public static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    /** Copies this pair's files over {@code target}'s (certificate first, as a renewal tool writes them). */
    public void copyTo(Path certificateFile, Path keyFile) {
        try {
            Files.copy(certificate, certificateFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.copy(privateKey, keyFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client context that trusts this certificate only. */
    public SSLContext clientContext() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("self", x509);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(null, tmf.getTrustManagers(), new SecureRandom());
            return c;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A server context serving this certificate; each handshake's SNI host name (RFC 6066 §3) is added to
     * {@code serverNames} ({@code ""} when the client sent none).
     */
    public SSLContext serverContext(List<String> serverNames) {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("self", key, new char[0], new X509Certificate[] {x509});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, new char[0]);
            X509ExtendedKeyManager inner = (X509ExtendedKeyManager) kmf.getKeyManagers()[0];
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(new KeyManager[] {new SniRecorder(inner, serverNames)}, null, new SecureRandom());
            return c;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The leaf certificate a TLS server on {@code 127.0.0.1:port} presents to a new connection (trusting any). */
    public static X509Certificate served(int port) {
        try {
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
            try (SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket("127.0.0.1", port)) {
                s.setSoTimeout(5_000);
                s.startHandshake();
                return (X509Certificate) s.getSession().getPeerCertificates()[0];
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class TrustAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    private static final class SniRecorder extends X509ExtendedKeyManager {
        private final X509ExtendedKeyManager inner;
        private final List<String> names;

        SniRecorder(X509ExtendedKeyManager inner, List<String> names) {
            this.inner = inner;
            this.names = names;
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            record(engine.getHandshakeSession());
            return inner.chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            record(((SSLSocket) socket).getHandshakeSession());
            return inner.chooseServerAlias(keyType, issuers, socket);
        }

        private void record(javax.net.ssl.SSLSession session) {
            String name = "";
            if (session instanceof ExtendedSSLSession e) {
                for (SNIServerName n : e.getRequestedServerNames()) {
                    if (n instanceof SNIHostName h) {
                        name = h.getAsciiName();
                    }
                }
            }
            if (!names.contains(name)) {
                names.add(name);
            }
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return inner.getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return inner.chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return inner.getServerAliases(keyType, issuers);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return inner.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return inner.getPrivateKey(alias);
        }
    }

    /** A thread-safe list for {@link #serverContext(List)}. */
    public static List<String> names() {
        return new CopyOnWriteArrayList<>();
    }
}
