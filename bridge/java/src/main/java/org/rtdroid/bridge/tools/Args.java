package org.rtdroid.bridge.tools;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Minimal {@code --name value} command-line parsing with errors that name the argument. The
 * command line is outside the trust boundary: every number is range-checked by the caller.
 */
public final class Args {
    /** A usage error: the message names the argument and what is wrong. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }

    private final Map<String, String> values = new HashMap<>();

    private Args() {
    }

    /** Parses {@code args[from..]} as {@code --name value} pairs; only {@code allowed} names. */
    public static Args parse(String[] args, int from, Set<String> allowed) throws UsageException {
        Args a = new Args();
        for (int i = from; i < args.length; i += 2) {
            String name = args[i];
            if (!name.startsWith("--") || !allowed.contains(name.substring(2))) {
                throw new UsageException("unknown argument '" + name + "' (expected one of --" + String.join(", --",
                        new java.util.TreeSet<>(allowed)) + ")");
            }
            if (i + 1 >= args.length) {
                throw new UsageException("argument " + name + " needs a value");
            }
            if (a.values.put(name.substring(2), args[i + 1]) != null) {
                throw new UsageException("argument " + name + " given twice");
            }
        }
        return a;
    }

    public String string(String name) throws UsageException {
        String v = values.get(name);
        if (v == null || v.isEmpty()) {
            throw new UsageException("missing argument --" + name);
        }
        return v;
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public long number(String name, long min, long max) throws UsageException {
        String v = string(name);
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " '" + v + "' is not an integer");
        }
        if (n < min || n > max) {
            throw new UsageException("--" + name + " " + n + " must be between " + min + " and " + max);
        }
        return n;
    }

    public int intNumber(String name, int min, int max) throws UsageException {
        return (int) number(name, min, max);
    }
}
