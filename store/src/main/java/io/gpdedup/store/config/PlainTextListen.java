package io.gpdedup.store.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The secure default for a store without TLS: it listens only on loopback unless the config says
 * {@code tls-required: false}, because every login beyond this host would carry its password in
 * clear.
 */
public final class PlainTextListen {
    private PlainTextListen() {
    }

    /**
     * Refuses a config without tls-cert and tls-key whose {@code listenAddress} is not loopback
     * (0.0.0.0, ::, a routable address), unless {@code tlsRequired} is explicitly false.
     */
    public static void check(String listenAddress, Boolean tlsRequired, String source) {
        if (Boolean.FALSE.equals(tlsRequired) || isLoopback(listenAddress)) {
            return;
        }
        throw new ConfigLoader.ConfigException("config " + source + ": listen-address " + listenAddress
                + " is beyond loopback and TLS is off, so passwords would cross the network in clear: turn TLS on with "
                + "tls-cert and tls-key (docs/store.md, Security, has a lab certificate recipe), or accept plain text "
                + "with tls-required: false");
    }

    /** A name that does not resolve counts as loopback here: binding it fails the start with its own message. */
    private static boolean isLoopback(String listenAddress) {
        try {
            return InetAddress.getByName(listenAddress).isLoopbackAddress();
        } catch (UnknownHostException | SecurityException e) {
            return true;
        }
    }
}
