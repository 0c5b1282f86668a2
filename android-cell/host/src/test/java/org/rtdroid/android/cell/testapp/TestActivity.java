package org.rtdroid.android.cell.testapp;

import android.app.Activity;
import android.content.BroadcastReceiver;
import android.content.ComponentName;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.content.ServiceConnection;
import android.os.Bundle;
import android.os.IBinder;
import android.view.View;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.TextView;

/**
 * A small app the host tests install as a bundle: a button that throws, a send on a channel the
 * app does not declare, a broadcast at a real-time sender priority, a bound service, and a record of what reached its receivers.
 */
public class TestActivity extends Activity {
    TextView refusal;
    TextView bound;
    TextView received;

    private final BroadcastReceiver receiver = new BroadcastReceiver() {
        @Override
        public void onReceive(Context context, Intent intent) {
            if ("org.rtdroid.proxy.REFUSED".equals(intent.getAction())) {
                refusal.setText(intent.getStringExtra("reason"));
            } else {
                received.setText(received.getText() + intent.getAction() + ";");
            }
        }
    };

    private final ServiceConnection connection = new ServiceConnection() {
        @Override
        public void onServiceConnected(ComponentName name, IBinder service) {
            bound.setText("bound:" + ((TestService.LocalBinder) service).greeting());
        }

        @Override
        public void onServiceDisconnected(ComponentName name) {
            bound.setText("disconnected");
        }
    };

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        LinearLayout root = new LinearLayout(this);
        root.setOrientation(LinearLayout.VERTICAL);
        refusal = text(root, "refusal");
        bound = text(root, "bound");
        received = text(root, "received");
        button(root, "crash", v -> {
            throw new IllegalStateException("deliberate crash in onClick");
        });
        button(root, "send_undeclared", v -> startService(configIntent(getPackageName())));
        button(root, "send_as_another", v -> {
            // a hostile app naming another package as the sender (and trying to stamp the identity)
            Intent i = configIntent("org.rtdroid.cochlear.ui");
            i.putExtra("org.rtdroid.proxy.CALLING_PACKAGE", "org.rtdroid.cochlear.ui");
            startService(i);
        });
        button(root, "broadcast_rt", v -> sendBroadcast(new Intent("org.rtdroid.test.RT_HELLO")
                .putExtra("org.rtdroid.intent.extra.SENDER_PRIORITY", 90)));
        button(root, "bind", v -> bindService(new Intent().setClassName(getPackageName(),
                TestService.class.getName()), connection, Context.BIND_AUTO_CREATE));
        setContentView(root);
    }

    @Override
    protected void onResume() {
        super.onResume();
        IntentFilter f = new IntentFilter("org.rtdroid.proxy.REFUSED");
        f.addAction("org.rtdroid.test.HELLO");
        f.addAction("org.rtdroid.test.RT_HELLO");
        registerReceiver(receiver, f);
    }

    @Override
    protected void onPause() {
        unregisterReceiver(receiver);
        super.onPause();
    }

    /** A SEND of the cochlear implant's SET_CONFIG, which this app does not declare, as {@code sender}. */
    private static Intent configIntent(String sender) {
        Intent i = new Intent("org.rtdroid.proxy.SEND");
        i.setClassName("org.rtdroid.proxy", "org.rtdroid.android.proxy.RTsProxyService");
        i.putExtra("channel", "cochlear.config");
        i.putExtra("action", "org.rtdroid.cochlear.SET_CONFIG");
        i.putExtra("payload", new byte[8]);
        i.putExtra("priority", 50);
        i.putExtra("sender", sender);
        return i;
    }

    private TextView text(LinearLayout root, String tag) {
        TextView t = new TextView(this);
        t.setTag(tag);
        root.addView(t);
        return t;
    }

    private void button(LinearLayout root, String tag, View.OnClickListener l) {
        Button b = new Button(this);
        b.setTag(tag);
        b.setText(tag);
        b.setOnClickListener(l);
        root.addView(b);
    }
}
