package org.rtdroid.runtime.validation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Worst-case queue occupancy of every channel, per consumer (a broadcast channel per subscriber).
 * A producer task of period T, response time R and c messages per release sends at most
 * c·⌈(L + R)/T⌉ messages in any window of length L (it may send anywhere within its response
 * time); the Android cell on an inbound cross-context channel with minimum inter-arrival time m
 * sends at most ⌊L/m⌋ + 1. Then, with A(L) the sum over producers:
 * <ul>
 *   <li>a periodic consumer (or a server) taking k messages per release (its subscriber
 *       {@code count}; period T_c, response time R_c) holds at
 *       most max_{n ≥ 1} A(n·T_c + R_c) − (n−1)·k; if messages arrive faster than k per T_c the
 *       queue grows without bound;</li>
 *   <li>a sporadic receiver handles each message within its response time R_r, so it
 *       holds at most A(R_r); it must not be offered more than one message per minimum inter-arrival
 *       time on average (over all the channels it subscribes to);</li>
 *   <li>the Android cell drains an outbound cross-context channel as it can: the bound is one release
 *       of every producer; an inbound cross-context channel without a declared minimum inter-arrival
 *       time is best effort: a full queue refuses (CHANNEL_FULL), by design.</li>
 * </ul>
 * An occupancy above the capacity fails, with what the drop policy then does.
 */
final class ChannelOverflow {
    /** Consumer windows examined at most (n above): beyond the producers' and consumer's hyperperiod nothing new occurs. */
    private static final long MAX_WINDOWS = 100_000;

    private ChannelOverflow() {}

    static List<ValidationReport.ChannelResult> analyse(SystemModel model, Map<String, ResponseTimeAnalysis.Result> byTask,
                                                        Function<String, String> labels) {
        Map<String, Double> offeredRate = offeredRates(model, byTask);
        List<ValidationReport.ChannelResult> out = new ArrayList<>();
        for (ChannelModel ch : model.channels()) {
            if (ch.toAndroid()) {
                long perRelease = 0;
                for (ChannelModel.End p : ch.producers()) {
                    perRelease += p.countPerRelease();
                }
                out.add(verdict(ch, "Android cell", perRelease, "one release of every producer"));
            }
            for (ChannelModel.End c : ch.consumers()) {
                ResponseTimeAnalysis.Result consumer = byTask.get(c.task());
                if (consumer == null) {
                    continue;  // not analysable (INCOMPLETE already says why)
                }
                String who = labels.apply(c.task());
                if (ch.fromAndroid() && ch.inboundMinInterArrivalNanos() == 0) {
                    out.add(new ValidationReport.ChannelResult(ch, who, -1,
                            "best effort: the Android cell's rate is not declared (min-interarrival); a full queue"
                                    + " refuses with CHANNEL_FULL", true));
                    continue;
                }
                try {
                    out.add(consumerResult(ch, c, who, consumer, byTask, offeredRate));
                } catch (ArithmeticException e) {
                    out.add(new ValidationReport.ChannelResult(ch, who, -1,
                            "cannot be bounded: its timing figures overflow the analysis", false));
                }
            }
        }
        return List.copyOf(out);
    }

    private static ValidationReport.ChannelResult consumerResult(ChannelModel ch, ChannelModel.End c, String who,
            ResponseTimeAnalysis.Result consumer, Map<String, ResponseTimeAnalysis.Result> byTask,
            Map<String, Double> offeredRate) {
        Task t = consumer.task();
        String unbounded = consumer.wcrtNanos() == Long.MAX_VALUE ? who : null;
        for (ChannelModel.End p : queuedProducers(ch)) {
            ResponseTimeAnalysis.Result r = byTask.get(p.task());
            if (unbounded == null && r != null && r.wcrtNanos() == Long.MAX_VALUE) {
                unbounded = r.task().name();
            }
        }
        if (unbounded != null) {
            return new ValidationReport.ChannelResult(ch, who, -1,
                    "cannot be bounded while " + unbounded + " has no bounded response time", false);
        }
        if (t.kind() != Task.Kind.SPORADIC) {  // a server takes its count per server period
            return periodicConsumer(ch, c, who, consumer, byTask);
        }
        double offered = offeredRate.getOrDefault(t.key(), 0.0) * t.periodNanos();
        if (offered > 1.0 + 1e-9) {
            return new ValidationReport.ChannelResult(ch, who, -1, String.format(java.util.Locale.ROOT,
                    "%s is offered %.3f messages per minimum inter-arrival time %s, more than the 1 its analysis assumes",
                    who, offered, Durations.format(t.periodNanos())), false);
        }
        return verdict(ch, who, arrivals(ch, consumer.wcrtNanos(), byTask),
                "arrivals within its response time " + Durations.format(consumer.wcrtNanos()));
    }

    private static ValidationReport.ChannelResult periodicConsumer(ChannelModel ch, ChannelModel.End c, String who,
            ResponseTimeAnalysis.Result consumer, Map<String, ResponseTimeAnalysis.Result> byTask) {
        Task t = consumer.task();
        double offered = rate(ch, byTask) * t.periodNanos();
        if (offered > c.countPerRelease() + 1e-9) {
            return new ValidationReport.ChannelResult(ch, who, -1, String.format(java.util.Locale.ROOT,
                    "grows without bound: %.3f messages arrive per period %s of %s, which takes %d",
                    offered, Durations.format(t.periodNanos()), who, c.countPerRelease()), false);
        }
        long worst = 0;
        long windows = Math.min(MAX_WINDOWS, hyperperiodWindows(ch, t, byTask));
        for (long n = 1; n <= windows; n++) {
            long window = Math.addExact(Math.multiplyExact(n, t.periodNanos()), consumer.wcrtNanos());
            long a = arrivals(ch, window, byTask) - (n - 1) * c.countPerRelease();
            worst = Math.max(worst, a);
        }
        return verdict(ch, who, worst, "arrivals between two takes of " + c.countPerRelease() + " per "
                + Durations.format(t.periodNanos()));
    }

    private static ValidationReport.ChannelResult verdict(ChannelModel ch, String consumer, long worst, String basis) {
        if (worst <= ch.capacity()) {
            return new ValidationReport.ChannelResult(ch, consumer, worst,
                    "worst-case occupancy " + worst + " <= capacity " + ch.capacity() + " (" + basis + ")", true);
        }
        return new ValidationReport.ChannelResult(ch, consumer, worst, "worst-case occupancy " + worst + " > capacity "
                + ch.capacity() + " for " + consumer + " (" + basis + "); drop " + ch.drop() + ": " + dropEffect(ch.drop()), false);
    }

    private static String dropEffect(String drop) {
        return switch (drop) {
            case "priority&oldest" -> "a higher-priority sender steals the slot of the lowest-priority oldest message";
            case "oldest" -> "the oldest queued message is lost";
            default -> "the new message is refused";
        };
    }

    /** Messages the producers of {@code ch} may send in any window of length {@code window}. */
    static long arrivals(ChannelModel ch, long window, Map<String, ResponseTimeAnalysis.Result> byTask) {
        long n = 0;
        for (ChannelModel.End p : queuedProducers(ch)) {
            ResponseTimeAnalysis.Result r = byTask.get(p.task());
            if (r != null) {
                long releases = ResponseTimeAnalysis.ceilDiv(Math.addExact(window, r.wcrtNanos()), r.task().periodNanos());
                n = Math.addExact(n, Math.multiplyExact(p.countPerRelease(), releases));
            }
        }
        if (ch.inboundMinInterArrivalNanos() > 0) {
            n += window / ch.inboundMinInterArrivalNanos() + 1;
        }
        return n;
    }

    /** The RT producers whose messages land in the consumers' queue: on a cross-context channel
     *  they publish to the Android cell, and only the Android cell fills the inbound queue. */
    private static List<ChannelModel.End> queuedProducers(ChannelModel ch) {
        return ch.fromAndroid() || ch.toAndroid() ? List.of() : ch.producers();
    }

    /** Long-run messages per nanosecond offered on {@code ch}. */
    private static double rate(ChannelModel ch, Map<String, ResponseTimeAnalysis.Result> byTask) {
        double r = 0;
        for (ChannelModel.End p : queuedProducers(ch)) {
            ResponseTimeAnalysis.Result res = byTask.get(p.task());
            if (res != null) {
                r += (double) p.countPerRelease() / res.task().periodNanos();
            }
        }
        if (ch.inboundMinInterArrivalNanos() > 0) {
            r += 1.0 / ch.inboundMinInterArrivalNanos();
        }
        return r;
    }

    /** Per sporadic consumer, the messages per nanosecond offered by all the channels it takes from. */
    private static Map<String, Double> offeredRates(SystemModel model, Map<String, ResponseTimeAnalysis.Result> byTask) {
        Map<String, Double> out = new HashMap<>();
        for (ChannelModel ch : model.channels()) {
            double r = rate(ch, byTask);
            for (ChannelModel.End c : ch.consumers()) {
                out.merge(c.task(), r, Double::sum);
            }
        }
        return out;
    }

    /** Consumer periods until the producers' and the consumer's periods line up again. */
    private static long hyperperiodWindows(ChannelModel ch, Task consumer, Map<String, ResponseTimeAnalysis.Result> byTask) {
        long h = consumer.periodNanos();
        for (ChannelModel.End p : ch.producers()) {
            ResponseTimeAnalysis.Result r = byTask.get(p.task());
            if (r != null) {
                long t = r.task().periodNanos();
                long g = gcd(h, t);
                if (h / g > Long.MAX_VALUE / t) {
                    return MAX_WINDOWS;
                }
                h = h / g * t;
            }
        }
        if (ch.inboundMinInterArrivalNanos() > 0) {
            return MAX_WINDOWS;
        }
        return h / consumer.periodNanos() + 1;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
