package org.rtdroid.bench.looper.fifo;

import java.util.concurrent.CountDownLatch;

/** {@code android.os.HandlerThread}: a thread that runs a stock {@link Looper}. */
public final class HandlerThread extends Thread {
    private final CountDownLatch prepared = new CountDownLatch(1);
    private volatile Looper looper;

    public HandlerThread(String name) {
        super(name);
        setDaemon(true);
    }

    @Override
    public void run() {
        Looper.prepare();
        looper = Looper.myLooper();
        prepared.countDown();
        Looper.loop();
    }

    public Looper getLooper() {
        try {
            prepared.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for looper " + getName(), e);
        }
        return looper;
    }

    public boolean quit() {
        Looper l = looper;
        if (l == null) {
            return false;
        }
        l.quit();
        return true;
    }
}
