package ksim.groundtruth;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The TCP proxy of one link: it listens on 127.0.S.D at server D's advertised port and forwards
 * each connection to D's real listener, so it knows every byte goes from S to D or back. Each
 * direction of a connection is a reader thread (stamps each chunk with the time it may leave,
 * now plus the direction's extra delay) and a writer thread (waits for that time and while the
 * direction is cut, then writes). A cut holds bytes without closing the connection, so the peers
 * time out as they would behind a real partition; closing one side closes the other.
 */
public final class LinkProxy implements AutoCloseable {
    private static final byte[] END = new byte[0];
    private final int source;
    private final int destination;
    private final int realPort;
    private final LinkRules rules;
    private final InetSocketAddress address;
    private volatile ServerSocket listener;

    private record Chunk(byte[] bytes, long dueNs) {}

    public LinkProxy(int source, int destination, int port, int realPort, LinkRules rules) throws IOException {
        this.source = source;
        this.destination = destination;
        this.realPort = realPort;
        this.rules = rules;
        this.address = new InetSocketAddress(InetAddress.getByName(AddressPlan.linkAddress(source, destination)), port);
        open();
    }

    /**
     * Listens (again). While the destination is down the proxy does not listen, so a caller's
     * connection is refused as it would be by a host whose broker is dead, not accepted and
     * then closed (which a Kafka client takes for a live node and keeps retrying).
     */
    public synchronized void open() throws IOException {
        if (listener != null && !listener.isClosed()) return;
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(address, 200);
        listener = s;
        Thread acceptor = new Thread(() -> acceptLoop(s), "proxy-accept-" + source + "-" + destination);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void acceptLoop(ServerSocket listener) {
        while (!listener.isClosed()) {
            try {
                Socket inbound = listener.accept();
                Socket outbound;
                try {
                    outbound = new Socket(InetAddress.getLoopbackAddress(), realPort);
                } catch (IOException refused) {
                    inbound.close(); // the server is down: the caller sees its connection fail
                    continue;
                }
                inbound.setTcpNoDelay(true);
                outbound.setTcpNoDelay(true);
                pump(inbound, outbound, source, destination);
                pump(outbound, inbound, destination, source);
            } catch (IOException e) {
                if (!listener.isClosed()) System.err.println("proxy " + source + "->" + destination + ": " + e);
            }
        }
    }

    private void pump(Socket from, Socket to, int fromId, int toId) throws IOException {
        LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        String name = "proxy-" + fromId + "-" + toId;
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    queue.add(new Chunk(Arrays.copyOf(buffer, n), RunClock.now() + rules.delayNs(fromId, toId)));
                }
            } catch (IOException closed) {
                // the socket was reset or closed: end the other direction too
            }
            queue.add(new Chunk(END, 0));
        }, name + "-read");
        Thread writer = new Thread(() -> {
            try {
                while (true) {
                    Chunk c = queue.take();
                    if (c.bytes() == END) break;
                    RunClock.sleepUntil(c.dueNs());
                    rules.awaitOpen(fromId, toId);
                    out.write(c.bytes());
                }
            } catch (IOException | InterruptedException e) {
                // the peer went away
            }
            closeQuietly(from);
            closeQuietly(to);
        }, name + "-write");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /** Stops listening; connections already forwarded go on until their ends close them. */
    @Override
    public synchronized void close() throws IOException {
        if (listener != null) listener.close();
    }
}
