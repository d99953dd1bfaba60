package ksim.groundtruth;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One node of the run as a process: a server (kafka.Kafka on its properties file) or a workload
 * client ({@link ClientMain}), its own JVM with its own hosts file. Its data dir and history part
 * survive a crash, so a restart is the same node carrying on.
 */
public final class NodeProcess {
    private final String name;
    private final String mainClass;
    private final List<String> args;
    private final Path hostsFile;
    private final Path log;
    private final ProcessLauncher launcher;
    private final String heap;
    private Process process;

    public NodeProcess(String name, String mainClass, List<String> args, Path hostsFile, Path log,
                       ProcessLauncher launcher, String heap) {
        this.name = name;
        this.mainClass = mainClass;
        this.args = args;
        this.hostsFile = hostsFile;
        this.log = log;
        this.launcher = launcher;
        this.heap = heap;
    }

    public String name() {
        return name;
    }

    public Path log() {
        return log;
    }

    public synchronized void start(List<String> extraArgs) throws IOException {
        if (process != null && process.isAlive()) throw new IllegalStateException(name + " is already running");
        List<String> all = new ArrayList<>(args);
        all.addAll(extraArgs);
        process = launcher.startJava(jvmOptions(heap, hostsFile), mainClass, all, log);
    }

    public void start() throws IOException {
        start(List.of());
    }

    /** The JVM options of every process of the run: a small heap, one JIT tier, the hosts file, the epoch. */
    public static List<String> jvmOptions(String heap, Path hostsFile) {
        return List.of("-Xmx" + heap, "-Xms" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-XX:MaxMetaspaceSize=128m", "-Xss512k", "-Djava.awt.headless=true",
                "-Djdk.net.hosts.file=" + hostsFile,
                "-Dsun.net.inetaddr.ttl=0", "-Dnetworkaddress.cache.ttl=0",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=" + System.getProperty("ksim.node.log.level", "warn"),
                "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                "-Dksim.epoch.ns=" + RunClock.epochNs());
    }

    /** The running process's id (for jcmd), or -1. */
    public synchronized long pid() {
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** kill -9: no controlled shutdown, no flush, no LeaveGroup. */
    public synchronized void crash() {
        if (process != null) ProcessLauncher.kill(process);
    }

    public synchronized void pause() {
        if (process != null && process.isAlive()) ProcessLauncher.signal(process, "STOP");
    }

    public synchronized void resume() {
        if (process != null && process.isAlive()) ProcessLauncher.signal(process, "CONT");
    }

    /** SIGTERM (a broker's controlled shutdown, a client's close()); waits for the exit, SIGKILL after 60 s. */
    public void shutdown() throws InterruptedException {
        Process p;
        synchronized (this) {
            p = process;
        }
        if (p == null || !p.isAlive()) return;
        p.destroy();
        if (!p.waitFor(60, TimeUnit.SECONDS)) ProcessLauncher.kill(p);
    }
}
