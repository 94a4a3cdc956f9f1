// Prints a TCP port free on 127.0.0.1 now: `java scripts/lib/FreePort.java` (source-file mode).
public class FreePort {
    public static void main(String[] args) throws Exception {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            System.out.println(s.getLocalPort());
        }
    }
}
