package ksim.groundtruth;

import java.util.HashMap;
import java.util.Map;

/**
 * The state of the network between address ids, changed by the fault schedule and read by the
 * proxies for every chunk they forward. A direction of traffic from {@code from} to {@code to}
 * can be cut (bytes are held, not dropped, as a blackholed network holds TCP's retransmissions)
 * or delayed (every chunk waits {@code extra} ns more). Rules stack: two overlapping spikes on
 * one direction add up, two partitions must both heal.
 */
public final class LinkRules {
    private final Map<Long, Integer> cuts = new HashMap<>();
    private final Map<Long, Long> extraDelayNs = new HashMap<>();

    private static long key(int from, int to) {
        return ((long) from << 32) | (to & 0xffffffffL);
    }

    public synchronized void cut(int from, int to) {
        cuts.merge(key(from, to), 1, Integer::sum);
    }

    public synchronized void heal(int from, int to) {
        cuts.computeIfPresent(key(from, to), (k, n) -> n > 1 ? n - 1 : null);
        notifyAll();
    }

    public synchronized void addDelay(int from, int to, long extraNs) {
        extraDelayNs.merge(key(from, to), extraNs, Long::sum);
    }

    public synchronized void removeDelay(int from, int to, long extraNs) {
        extraDelayNs.computeIfPresent(key(from, to), (k, d) -> d - extraNs > 0 ? d - extraNs : null);
    }

    public synchronized long delayNs(int from, int to) {
        return extraDelayNs.getOrDefault(key(from, to), 0L);
    }

    /** Blocks while the direction is cut. */
    public synchronized void awaitOpen(int from, int to) throws InterruptedException {
        while (cuts.containsKey(key(from, to))) wait(100);
    }
}
