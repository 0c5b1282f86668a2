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

    static final long TIMEOUT_MILLIS = 20_000;

    private MainThread() {
    }

    static <T> T call(Task<T> task) throws CellException {
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
            return f.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof CellException) {
                throw (CellException) c;
            }
            throw new CellException(500, "main looper task failed: " + c);
        } catch (TimeoutException e) {
            throw new CellException(503, "the main looper did not answer within " + TIMEOUT_MILLIS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CellException(503, "interrupted");
        }
    }
}
