package io.gpdedup.plugin.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Paths;
import java.time.Duration;

/**
 * Copies stdin to stdout as it arrives, reads and writes interleaved like a command that does both:
 * the transport's stress case. Arguments: {@code echo [exit status]}; reports the byte count on stderr.
 */
public final class EchoHandler implements CallHandler {
    @Override
    public int handle(CallRequest call, InputStream in, OutputStream out, PrintStream err) {
        long total = 0;
        try {
            byte[] buf = new byte[32 * 1024];
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
                total += n;
            }
        } catch (IOException e) {
            err.println("echo failed after " + total + " bytes: " + e.getMessage());
            return 1;
        }
        err.println("echoed " + total + " bytes");
        return call.args().size() > 1 ? Integer.parseInt(call.args().get(1)) : 0;
    }

    /** An agent process serving echo calls: {@code EchoHandler <ignored definition> <socket> [--idle-timeout=D]}. */
    public static void main(String[] args) {
        Duration idle = args.length > 2 ? HostAgent.parseDuration(args[2].substring("--idle-timeout=".length())) : HostAgent.DEFAULT_IDLE_TIMEOUT;
        System.exit(HostAgent.run(new EchoHandler(), Paths.get(args[1]), idle, new AgentLog(System.err)));
    }
}
