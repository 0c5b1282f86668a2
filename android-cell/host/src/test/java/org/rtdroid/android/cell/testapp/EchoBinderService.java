package org.rtdroid.android.cell.testapp;

import android.app.Service;
import android.content.Intent;
import android.os.Binder;
import android.os.IBinder;
import android.os.Parcel;

/**
 * An exported bound service whose binder answers transaction 1 (a string in, a string out)
 * with the pid and uid it runs in: a client in another process reaches it through a proxy.
 */
public class EchoBinderService extends Service {
    public static final String DESCRIPTOR = "org.rtdroid.test.IEcho";
    public static final int ECHO = IBinder.FIRST_CALL_TRANSACTION;

    @Override
    public IBinder onBind(Intent intent) {
        android.util.Log.i("EchoBinderService", "onBind in pid " + ProcessHandle.current().pid() + " as uid " + Ids.uid());
        Binder b = new Binder() {
            @Override
            protected boolean onTransact(int code, Parcel data, Parcel reply, int flags) throws android.os.RemoteException {
                if (code != ECHO) {
                    return super.onTransact(code, data, reply, flags); // INTERFACE_TRANSACTION: the descriptor
                }
                data.enforceInterface(DESCRIPTOR);
                String s = data.readString();
                reply.writeNoException();
                reply.writeString("echo " + s + " from pid " + ProcessHandle.current().pid() + " uid " + Ids.uid());
                return true;
            }
        };
        b.attachInterface(null, DESCRIPTOR);
        return b;
    }
}
