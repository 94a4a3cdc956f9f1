package io.gpdedup.plugin.agent;

import java.io.IOException;

/** The peer broke the launcher-agent protocol: unknown frame, frame too long, frame out of order. */
final class ProtocolException extends IOException {
    ProtocolException(String message) {
        super(message);
    }
}
