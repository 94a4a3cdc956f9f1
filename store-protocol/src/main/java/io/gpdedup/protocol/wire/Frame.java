package io.gpdedup.protocol.wire;

/**
 * One frame on the wire: a message, the request id that pairs a reply with its request, and
 * whether more frames of the same reply follow.
 */
public record Frame(int requestId, boolean more, Message message) {
    public Frame {
        if (more && !message.type().splittable()) {
            throw new IllegalArgumentException(message.type() + " cannot be split over frames");
        }
    }

    public static Frame of(int requestId, Message message) {
        return new Frame(requestId, false, message);
    }

    public MessageType type() {
        return message.type();
    }
}
