package org.rtdroid.android.cell.pm;

import android.content.Intent;
import android.net.Uri;

import java.util.Set;

/** Manifest intent-filter matching, shared by the activity stack, services and broadcasts. */
public final class IntentResolver {
    private IntentResolver() {
    }

    /** Whether one of the component's filters accepts the intent's action, categories and data scheme. */
    public static boolean matches(AppBundle.Component c, Intent intent) {
        String action = intent.getAction();
        Set<String> cats = intent.getCategories();
        Uri data = intent.getData();
        for (AppBundle.Filter f : c.filters()) {
            if (action == null || !f.actions.contains(action)) {
                continue;
            }
            if (cats != null && !f.categories.containsAll(cats)) {
                continue;
            }
            if (data != null ? !f.schemes.contains(data.getScheme()) : !f.schemes.isEmpty()) {
                continue;
            }
            return true;
        }
        return false;
    }
}
