package org.rtdroid.android.cell.os;

import android.os.IBinder;
import android.os.IInterface;
import android.os.Parcel;
import android.os.RemoteException;

import java.io.FileDescriptor;
import java.util.HexFormat;

/**
 * A client's handle on a service's binder that lives in another process (AOSP's
 * {@code BinderProxy}): a transaction's Parcel is marshalled, carried as bytes over the system
 * server's IPC, run by the real binder in its process, and its reply Parcel carried back. The
 * client never holds the service's object: {@link #queryLocalInterface} is null, so a cast to the
 * service's own class fails as on a device, and a stub's {@code asInterface} makes a proxy.
 */
public abstract class ProxyBinder implements IBinder {
    protected final long handle;
    private final String descriptor;
    private volatile boolean dead;

    protected ProxyBinder(long handle, String descriptor) {
        this.handle = handle;
        this.descriptor = descriptor;
    }

    /**
     * Carries {@code transact handle=H code=N flags=F data=HEX}; the reply's text ({@code OK
     * reply=HEX result=true|false} or {@code ERR reason}). IOException: the other side is gone.
     */
    protected abstract String call(String request) throws java.io.IOException;

    @Override
    public boolean transact(int code, Parcel data, Parcel reply, int flags) throws RemoteException {
        if (dead) {
            throw new android.os.DeadObjectException("binder " + handle + " is dead");
        }
        String answer;
        try {
            answer = call("transact\nhandle=" + handle + "\ncode=" + code + "\nflags=" + flags + "\ndata="
                    + HexFormat.of().formatHex(data.marshall()));
        } catch (java.io.IOException e) {
            dead = true;
            throw new android.os.DeadObjectException("binder " + handle + ": " + e.getMessage());
        }
        if (!answer.startsWith("OK")) {
            if (answer.contains("no binder") || answer.contains("died")) {
                dead = true;
                throw new android.os.DeadObjectException(answer);
            }
            throw new RemoteException(answer);
        }
        java.util.Map<String, String> f = IntentWire.fields(answer.split("\n"), 1);
        if (reply != null && f.get("reply") != null && !f.get("reply").isEmpty()) {
            byte[] b = HexFormat.of().parseHex(f.get("reply"));
            reply.unmarshall(b, 0, b.length);
            reply.setDataPosition(0);
        }
        return "true".equals(f.get("result"));
    }

    /**
     * The receiving side: runs a transaction's request on the real binder; the reply's text.
     */
    public static String serve(IBinder binder, java.util.Map<String, String> f) {
        Parcel data = Parcel.obtain();
        Parcel reply = Parcel.obtain();
        try {
            byte[] b = HexFormat.of().parseHex(f.getOrDefault("data", ""));
            data.unmarshall(b, 0, b.length);
            data.setDataPosition(0);
            boolean result = binder.transact(Integer.parseInt(f.get("code")), data, reply,
                    Integer.parseInt(f.getOrDefault("flags", "0")));
            return "OK\nresult=" + result + "\nreply=" + HexFormat.of().formatHex(reply.marshall());
        } catch (RemoteException | RuntimeException e) {
            return "ERR the transaction failed: " + e;
        } finally {
            data.recycle();
            reply.recycle();
        }
    }

    @Override
    public String getInterfaceDescriptor() {
        return descriptor;
    }

    @Override
    public boolean pingBinder() {
        return !dead;
    }

    @Override
    public boolean isBinderAlive() {
        return !dead;
    }

    @Override
    public IInterface queryLocalInterface(String d) {
        return null; // the object is in another process
    }

    @Override
    public void dump(FileDescriptor fd, String[] args) {
    }

    @Override
    public void dumpAsync(FileDescriptor fd, String[] args) {
    }

    @Override
    public void shellCommand(FileDescriptor in, FileDescriptor out, FileDescriptor err, String[] args,
            android.os.ShellCallback callback, android.os.ResultReceiver result) {
        throw new UnsupportedOperationException("no shell command across the cell's IPC");
    }

    @Override
    public void linkToDeath(DeathRecipient recipient, int flags) {
    }

    @Override
    public boolean unlinkToDeath(DeathRecipient recipient, int flags) {
        return true;
    }

    /** Marks the binder dead (its process died or the binding went). */
    public void died() {
        dead = true;
    }

    @Override
    public String toString() {
        return "BinderProxy{handle=" + handle + (descriptor != null ? " " + descriptor : "") + (dead ? " dead" : "") + "}";
    }
}
