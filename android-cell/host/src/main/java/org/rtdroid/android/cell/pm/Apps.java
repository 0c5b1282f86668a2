package org.rtdroid.android.cell.pm;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which app a piece of code belongs to. Every installed app has its own class loader, so the
 * class of an object (or a frame on the stack) names its app; the proxy is a system app loaded
 * with the host, recognised by its package; anything else is the system ("android").
 */
public final class Apps {
    public static final String SYSTEM = "android";
    public static final String PROXY_PACKAGE = "org.rtdroid.proxy";
    private static final String PROXY_CODE = "org.rtdroid.android.proxy.";
    private static final Map<ClassLoader, String> loaders = new ConcurrentHashMap<>();
    // Only each frame's class is read: without method names and bytecode indexes a walk costs
    // about a third (a real-time broadcast's permission check, in the broadcast benchmark: p50
    // 31 us -> 9 us for the system's 27-frame stack).
    private static final StackWalker WALKER = StackWalker.getInstance(
            Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE, StackWalker.Option.DROP_METHOD_INFO));

    private Apps() {
    }

    /** An app's class loader: the package manager's for each app, an app process's for its own. */
    public static void register(ClassLoader loader, String pkg) {
        loaders.put(loader, pkg);
    }

    static void unregister(ClassLoader loader) {
        loaders.remove(loader);
    }

    public static String packageOf(Class<?> c) {
        ClassLoader l = c.getClassLoader();
        String pkg = l == null ? null : loaders.get(l);
        if (pkg != null) {
            return pkg;
        }
        return c.getName().startsWith(PROXY_CODE) ? PROXY_PACKAGE : SYSTEM;
    }

    public static String packageOf(Object o) {
        return o == null ? SYSTEM : packageOf(o.getClass());
    }

    /**
     * The installed app (or the proxy) whose code is the nearest caller outside the framework
     * (android.*, com.android.*, Robolectric, this host, the JDK), or null when that caller is
     * not app code.
     */
    public static String askingPackage() {
        return WALKER.walk(frames -> {
            for (java.util.Iterator<StackWalker.StackFrame> it = frames.iterator(); it.hasNext();) {
                Class<?> c = it.next().getDeclaringClass();
                ClassLoader l = c.getClassLoader();
                String pkg = l == null ? null : loaders.get(l);
                if (pkg != null) {
                    return pkg;
                }
                if (c.getName().startsWith(PROXY_CODE)) {
                    return PROXY_PACKAGE;
                }
                if (!isFramework(c.getName())) {
                    return null;
                }
            }
            return null;
        });
    }

    private static boolean isFramework(String n) {
        return n.startsWith("android.") || n.startsWith("com.android.") || n.startsWith("org.robolectric.")
                || n.startsWith("org.rtdroid.android.cell.") || n.startsWith("java.") || n.startsWith("jdk.")
                || n.startsWith("sun.") || n.startsWith("dalvik.") || n.startsWith("libcore.");
    }

    /** The innermost app (or the proxy) on the calling thread's stack, else "android". */
    public static String callerPackage() {
        return WALKER.walk(frames -> frames.map(f -> packageOf(f.getDeclaringClass()))
                .filter(p -> !SYSTEM.equals(p)).findFirst().orElse(SYSTEM));
    }
}
