package org.rtdroid.android.cell.os;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Run by {@link PosixTest} in a JVM of its own (the drop cannot be undone): starts threads, becomes
 * uid/gid {@code args[0]} with {@link Posix#becomeApp}, then prints every thread's Uid and Gid
 * lines from /proc/self/task, the time the drop took, and whether a root-only file still opens.
 */
public final class BecomeAppMain {
    private BecomeAppMain() {
    }

    public static void main(String[] args) throws Exception {
        int uid = Integer.parseInt(args[0]);
        CountDownLatch hold = new CountDownLatch(1);
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                try {
                    hold.await();
                } catch (InterruptedException ignored) {
                    // exits
                }
            }, "waiting-" + i);
            t.setDaemon(true);
            t.start();
        }
        Posix.geteuid(); // the class's downcall handles are made here, not in the timed drop
        long t0 = System.nanoTime();
        boolean ok = Posix.becomeApp(uid, uid);
        long took = System.nanoTime() - t0;
        System.out.println("becomeApp " + ok + " in " + took / 1000 + " us");
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                for (String line : Files.readAllLines(task.resolve("status"))) {
                    if (line.startsWith("Uid:") || line.startsWith("Gid:") || line.startsWith("Groups:")) {
                        System.out.println("task " + task.getFileName() + " " + line.replaceAll("\\s+", " ").trim());
                    }
                }
            }
        }
        try {
            Files.readAllBytes(Path.of(args[1]));
            System.out.println("root-only file: read");
        } catch (java.nio.file.AccessDeniedException e) {
            System.out.println("root-only file: denied");
        }
        hold.countDown();
    }
}
