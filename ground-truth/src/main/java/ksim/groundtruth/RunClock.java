package ksim.groundtruth;

import java.time.Instant;

/**
 * The run's one clock: nanoseconds since the run's start, the same epoch in every process.
 * The orchestrator picks the epoch (wall clock, ns since 1970) and passes it to every JVM it
 * starts with -Dksim.epoch.ns; each process reads the wall clock once and advances it with
 * System.nanoTime, so its times never go backwards.
 */
public final class RunClock {
    private static final long WALL_AT_START_NS = wallNowNs();
    private static final long MONO_AT_START_NS = System.nanoTime();
    private static volatile long epochNs = Long.getLong("ksim.epoch.ns", WALL_AT_START_NS);

    private RunClock() {}

    public static long wallNowNs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** The epoch every process measures from (ns since 1970). */
    public static long epochNs() {
        return epochNs;
    }

    /** The harness sets the run's start (wall clock ns) before it starts the workload's processes. */
    public static void startRunAt(long wallNs) {
        epochNs = wallNs;
    }

    /** Nanoseconds since the run's start. */
    public static long now() {
        return WALL_AT_START_NS + (System.nanoTime() - MONO_AT_START_NS) - epochNs;
    }

    /** Sleeps until the run's clock reads {@code t} ns (returns at once if it is past). */
    public static void sleepUntil(long t) throws InterruptedException {
        long left;
        while ((left = t - now()) > 0) {
            Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
        }
    }
}
