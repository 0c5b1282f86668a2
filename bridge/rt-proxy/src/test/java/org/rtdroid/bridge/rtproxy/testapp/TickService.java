package org.rtdroid.bridge.rtproxy.testapp;

import org.rtdroid.runtime.component.PeriodicTask;
import org.rtdroid.runtime.component.RealtimeService;

/** Test service: one periodic task that does a little work each release; its deadline misses are what the flood test watches. */
public final class TickService extends RealtimeService {
    @Override
    public void onCreate() {
        registerTask("tick", new PeriodicTask() {
            private long sum;

            @Override
            public void onRelease() {
                for (int i = 0; i < 1000; i++) {
                    sum += i ^ sum;
                }
            }
        });
    }
}
