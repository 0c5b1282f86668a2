/**
 * The RT Looper and RT Handler (dissertation section 3.5), and a stock-Android FIFO baseline: the
 * chapter 3 constructs the looper benchmark reproduces Fig. 3.9 with. Not the runtime's: its
 * components run on chapter 4's channels (docs/rtdroid-runtime.md, "Why components do not run on
 * the RT Looper"), which the benchmark measures beside them.
 *
 * <pre>{@code
 * RtHandlerThread t = new RtHandlerThread("sensor-looper", 10, MessagePolicy.INHERITANCE);
 * t.start();
 * RtHandler h = new RtHandler(t.getLooper(), "sensor", 64, 2, 0, msg -> process(msg.what, msg.data[0]));
 * // on any thread, after RealtimeThreads.applyToCurrentThread(RealtimePolicy.fifo(50)):
 * RtMessage m = h.obtainMessage(WHAT_SAMPLE);   // from h's fixed pool; MessagePoolExhaustedException when empty
 * m.data[0] = value;
 * h.sendMessage(m);                             // queued at priority 50; the looper inherits 50
 * }</pre>
 *
 * {@link org.rtdroid.bench.looper.RtLooper} keeps a queue per priority level and delivers the
 * highest-priority due message first (time order, then FIFO, within a level); its thread runs at
 * the highest pending priority (priority inheritance). {@link org.rtdroid.bench.looper.MessagePolicy}
 * chooses plain inheritance or inheritance + specified. Each {@link org.rtdroid.bench.looper.RtHandler}
 * owns a pool sized at construction: nothing is allocated after start.
 *
 * <p>{@code org.rtdroid.bench.looper.fifo} ({@code Looper}, {@code Handler}, {@code Message},
 * {@code HandlerThread}) reproduces {@code android.os} semantics (one time-ordered queue, a
 * global pool that allocates when empty) for benchmarks only.
 */
package org.rtdroid.bench.looper;
