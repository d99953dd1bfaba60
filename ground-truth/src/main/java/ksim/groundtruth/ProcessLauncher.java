package ksim.groundtruth;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Starts every JVM of a run (controller, brokers, clients) and makes sure none outlives it. Each
 * child runs under {@code setpriv --pdeathsig KILL}: the kernel kills it when the thread that
 * spawned it dies, so all spawns happen on one thread that lives as long as the harness; a
 * shutdown hook kills what is left when the harness exits by itself or on SIGTERM/SIGINT.
 */
public final class ProcessLauncher implements AutoCloseable {
    private final ExecutorService spawner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "process-spawner");
        t.setDaemon(true);
        return t;
    });
    private final List<Process> started = Collections.synchronizedList(new ArrayList<>());
    private final String classpath;

    public ProcessLauncher(String classpath) {
        this.classpath = classpath;
        Runtime.getRuntime().addShutdownHook(new Thread(this::killAll, "kill-children"));
    }

    /**
     * Starts {@code java jvmOptions mainClass args} with stdout and stderr appended to {@code log}.
     */
    public Process startJava(List<String> jvmOptions, String mainClass, List<String> args, Path log) throws IOException {
        List<String> command = new ArrayList<>(List.of("setpriv", "--pdeathsig", "KILL",
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        try {
            Process p = spawner.submit(builder::start).get();
            started.add(p);
            return p;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting " + mainClass, e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException("cannot start " + mainClass + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** Sends a signal (KILL, STOP, CONT, TERM) to a process. */
    public static void signal(Process p, String signal) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILL and reap. */
    public static void kill(Process p) {
        if (!p.isAlive()) return;
        signal(p, "CONT"); // a stopped process must run to die at once
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public void killAll() {
        List<Process> all;
        synchronized (started) {
            all = new ArrayList<>(started);
        }
        for (Process p : all) {
            if (p.isAlive()) {
                signal(p, "CONT");
                p.destroyForcibly();
            }
        }
        for (Process p : all) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        killAll();
        spawner.shutdownNow();
    }
}
