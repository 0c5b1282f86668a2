package org.rtdroid.runtime.alarm;

/**
 * What an alarm delivers and to whom (Android's {@code PendingIntent.getBroadcast}): a real-time
 * receiver, a request code (the delivered intent's {@code what}) and the priority of the component
 * that created it, the <em>sender priority</em> that orders alarms due at the same instant. At most
 * one alarm per pending intent is scheduled: setting it again replaces the previous alarm, as in
 * Android. Created at set-up by {@link AlarmManager#getBroadcast}; the alarm slot it owns is
 * pre-allocated with it.
 */
public final class PendingIntent {
    final AlarmManager owner;
    final AlarmTarget target;
    final int requestCode;
    final int senderPriority;
    // Guarded by the manager's lock.
    long triggerNanos;
    long intervalNanos;
    long seq;
    int heapIndex = -1;
    // Set by the alarm thread when queued for its target, cleared by the target's handler.
    volatile boolean due;

    PendingIntent(AlarmManager owner, AlarmTarget target, int requestCode, int senderPriority) {
        this.owner = owner;
        this.target = target;
        this.requestCode = requestCode;
        this.senderPriority = senderPriority;
    }

    public String receiver() { return target.name(); }

    public int requestCode() { return requestCode; }

    public int senderPriority() { return senderPriority; }
}
