package org.rtdroid.android.proxy;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageManager;
import android.os.Bundle;
import android.os.Handler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which installed app declares which cross-context channel (application meta-data
 * {@link ProxyContract#META_CHANNELS}), read from the PackageManager on the main looper and
 * re-read when packages are added, removed or replaced. Read from any thread.
 */
final class ChannelTable {
    private final Context context;
    private final Handler main;
    private volatile Map<String, List<String>> declaringApps = new HashMap<>(); // channel -> packages

    private final BroadcastReceiver packageChanges = new BroadcastReceiver() {
        @Override
        public void onReceive(Context c, Intent intent) {
            refresh();
        }
    };

    ChannelTable(Context context, Handler main) {
        this.context = context;
        this.main = main;
    }

    /** Reads the declarations now and follows package changes. */
    void start() {
        IntentFilter f = new IntentFilter();
        f.addAction(Intent.ACTION_PACKAGE_ADDED);
        f.addAction(Intent.ACTION_PACKAGE_REMOVED);
        f.addAction(Intent.ACTION_PACKAGE_REPLACED);
        f.addDataScheme("package");
        context.registerReceiver(packageChanges, f);
        refresh();
    }

    void stop() {
        try {
            context.unregisterReceiver(packageChanges);
        } catch (RuntimeException ignored) {
            // already gone with the context
        }
    }

    boolean declares(String pkg, String channel) {
        List<String> apps = declaringApps.get(channel);
        return apps != null && apps.contains(pkg);
    }

    /** The packages declaring the channel, sorted; null when none. */
    List<String> appsDeclaring(String channel) {
        return declaringApps.get(channel);
    }

    /** Re-reads the declarations on the main looper (the PackageManager's thread). */
    void packagesChanged() {
        main.post(this::refresh);
    }

    private void refresh() {
        Map<String, List<String>> m = new HashMap<>();
        PackageManager pm = context.getPackageManager();
        List<ApplicationInfo> apps = pm.getInstalledApplications(PackageManager.GET_META_DATA);
        for (ApplicationInfo ai : apps) {
            Bundle md = ai.metaData;
            String declared = md == null ? null : md.getString(ProxyContract.META_CHANNELS);
            if (declared == null) {
                continue;
            }
            for (String c : declared.split(",")) {
                String ch = c.trim();
                if (!ch.isEmpty()) {
                    m.computeIfAbsent(ch, k -> new ArrayList<>()).add(ai.packageName);
                }
            }
        }
        for (List<String> l : m.values()) {
            Collections.sort(l);
        }
        declaringApps = m;
    }
}
