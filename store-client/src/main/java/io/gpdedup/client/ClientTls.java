package io.gpdedup.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * The client side of TLS, plain JDK: which certificates to trust and the wrapping of a connected
 * socket. The server's name (or IP address) is checked against its certificate, as HTTPS does.
 *
 * @param caFile PEM file of the CA (or self-signed server) certificates to trust; null: the
 *     JDK's default trust store
 */
public record ClientTls(Path caFile) {
    /** TLS trusting the JDK's default CAs. */
    public static ClientTls systemTrust() {
        return new ClientTls(null);
    }

    /** TLS trusting exactly the certificates in {@code caFile}. */
    public static ClientTls trusting(Path caFile) {
        return new ClientTls(caFile);
    }

    /**
     * Runs the TLS handshake over the connected {@code plain} socket and returns the TLS socket
     * to use from then on (closing it closes {@code plain}).
     */
    public SSLSocket wrap(Socket plain, String host, int port) throws IOException {
        SSLSocket ssl = (SSLSocket) socketFactory().createSocket(plain, host, port, true);
        SSLParameters params = ssl.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        params.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
        ssl.setSSLParameters(params);
        ssl.setUseClientMode(true);
        ssl.startHandshake();
        return ssl;
    }

    private SSLSocketFactory socketFactory() throws IOException {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, trustManagers(), null);
            return ctx.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    private javax.net.ssl.TrustManager[] trustManagers() throws IOException, GeneralSecurityException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (caFile == null) {
            tmf.init((KeyStore) null);
            return tmf.getTrustManagers();
        }
        Collection<? extends Certificate> certs;
        try (InputStream in = Files.newInputStream(caFile)) {
            certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("TLS CA file " + caFile + " does not exist", e);
        } catch (java.security.cert.CertificateException e) {
            throw new IOException("TLS CA file " + caFile + " holds no readable PEM certificate: " + e.getMessage(), e);
        }
        if (certs.isEmpty()) {
            throw new IOException("TLS CA file " + caFile + " holds no certificate");
        }
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        int i = 0;
        for (Certificate c : certs) {
            trust.setCertificateEntry("ca-" + i++, c);
        }
        tmf.init(trust);
        return tmf.getTrustManagers();
    }
}
