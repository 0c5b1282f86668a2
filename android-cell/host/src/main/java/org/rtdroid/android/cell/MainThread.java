package org.rtdroid.android.cell;

import android.os.Handler;
import android.os.Looper;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs host work on the framework's main looper (the only thread that touches app code). */
final class MainThread {
    interface Task<T> {
        T run() throws Exception;
    }

    /** How long a control request waits for the main looper before it is answered 503. */
    static final long TIMEOUT_MILLIS = 20_000;

    private MainThread() {
    }

    /** A control request's work: refused with 503 if the looper does not answer in time. */
    static <T> T call(Task<T> task) throws CellException {
        return call(task, TIMEOUT_MILLIS);
    }

    /**
     * Start-up work (installing the proxy, the warm-up): waits as long as it takes. How long the
     * cell may take to become ready is the board's boot timeout, judged from outside; a limit of
     * its own here only made a slow (loaded) machine look like a broken cell.
     */
    static <T> T callAtStartUp(Task<T> task) throws CellException {
        return call(task, 0);
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
        CompletableFuture<T> f = new CompletableFuture<>();
        new Handler(Looper.getMainLooper()).post(() -> {
            try {
                f.complete(task.run());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
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
