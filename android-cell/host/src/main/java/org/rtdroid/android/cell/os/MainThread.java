package org.rtdroid.android.cell.os;

import android.os.Handler;
import android.os.Looper;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs host work on the framework's main looper (the only thread that touches app code). */
public final class MainThread {
    public interface Task<T> {
        T run() throws Exception;
    }

    /** How long a control request waits for the main looper before it is answered 503. */
    static final long TIMEOUT_MILLIS = 20_000;

    /**
     * Start-up work that runs on the main looper after READY (the widget warm-up): a control
     * request queues behind it, so its timeout starts once that work is done.
     */
    private static volatile CompletableFuture<?> afterReady = CompletableFuture.completedFuture(null);

    private MainThread() {
    }

    /** A control request's work: refused with 503 if the looper does not answer in time. */
    public static <T> T call(Task<T> task) throws CellException {
        return call(task, TIMEOUT_MILLIS);
    }

    /**
     * Start-up work before READY (installing the proxy): waits as long as it takes. How long the
     * cell may take to become ready is the board's boot timeout, judged from outside; a limit of
     * its own here only made a slow (loaded) machine look like a broken cell.
     */
    public static <T> T callAtStartUp(Task<T> task) throws CellException {
        return call(task, 0);
    }

    /**
     * Posts start-up work that need not hold READY back (the widget warm-up) to the main looper
     * and returns at once; control requests wait for it before their own timeout starts.
     */
    public static <T> CompletableFuture<T> postAfterReady(Task<T> task) {
        CompletableFuture<T> f = post(task);
        afterReady = f;
        return f;
    }

    /** Runs task on the main looper; its result or failure completes the future. */
    private static <T> CompletableFuture<T> post(Task<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        new Handler(Looper.getMainLooper()).post(() -> {
            try {
                f.complete(task.run());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    private static <T> T call(Task<T> task, long timeoutMillis) throws CellException {
        if (Looper.myLooper() == Looper.getMainLooper()) {
            try {
                return task.run();
            } catch (CellException e) {
                throw e;
            } catch (Exception e) {
                throw new CellException(500, e.toString());
            }
        }
        if (timeoutMillis > 0) {
            try {
                afterReady.handle((v, t) -> null).get(); // its failure is the cell's log's to tell
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CellException(503, "interrupted");
            } catch (ExecutionException e) {
                throw new IllegalStateException(e); // handle() completes normally
            }
        }
        CompletableFuture<T> f = post(task);
        try {
            return timeoutMillis > 0 ? f.get(timeoutMillis, TimeUnit.MILLISECONDS) : f.get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof CellException) {
                throw (CellException) c;
            }
            throw new CellException(500, "main looper task failed: " + c);
        } catch (TimeoutException e) {
            throw new CellException(503, "the main looper did not answer within " + timeoutMillis + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CellException(503, "interrupted");
        }
    }
}
