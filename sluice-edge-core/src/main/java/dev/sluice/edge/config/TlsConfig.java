package dev.sluice.edge.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The {@code listen.tls} section: the listener serves HTTPS (TLS 1.2 and 1.3, RFC 8446) with the
 * protocol chosen by ALPN (RFC 7301: {@code h2}, then {@code http/1.1}) from a PEM certificate chain and
 * its private key. Both files are watched: a changed pair is loaded for new connections; a pair that
 * does not load is refused with one log line and the previous one stays.
 *
 * <pre>{@code
 * listen:
 *   port: 8443
 *   tls:
 *     certificate: /etc/sluice/tls/fullchain.pem   # the leaf first, then its intermediates
 *     private-key: /etc/sluice/tls/privkey.pem     # PKCS#8 (BEGIN PRIVATE KEY), unencrypted
 * }</pre>
 *
 * @param certificate the PEM file with the certificate chain (relative paths resolve against the
 *     configuration file's folder)
 * @param privateKey the PEM file with the certificate's private key
 */
public record TlsConfig(Path certificate, Path privateKey) {

    public TlsConfig {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(privateKey, "privateKey");
    }
}
