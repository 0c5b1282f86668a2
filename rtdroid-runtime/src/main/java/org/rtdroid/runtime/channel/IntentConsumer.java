package org.rtdroid.runtime.channel;

/** Receives one in-channel intent; it is valid only for the duration of the call. */
@FunctionalInterface
public interface IntentConsumer {
    void onIntent(RealtimeIntent intent);
}
