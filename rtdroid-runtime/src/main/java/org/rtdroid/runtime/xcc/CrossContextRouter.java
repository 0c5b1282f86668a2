package org.rtdroid.runtime.xcc;

import java.nio.charset.StandardCharsets;
import org.rtdroid.runtime.channel.ChannelSender;
import org.rtdroid.runtime.channel.CrossContextOrigin;
import org.rtdroid.runtime.channel.MessageChannel;
import org.rtdroid.runtime.channel.MessageClosure;
import org.rtdroid.runtime.channel.RealtimeIntent;
import org.rtdroid.runtime.manifest.ChannelDecl;
import org.rtdroid.runtime.os.PiMutex;

/**
 * The runtime's {@link CrossContextEndpoint}: a fixed table of the cross-context channels deployed
 * manifests declare, their inbound queues (filled one intent at a time, at the cell's lowest
 * real-time priority, never stealing from real-time senders), and one bounded outbound ring shared
 * by all channels, with a per-channel quota (its declared capacity) so that one chatty application
 * cannot starve another. Admission (channel, direction, allowed sender, priority range) is checked
 * here and only here, in {@link #deliver}. An outbound intent is filled in the publishing channel's
 * own holder, which then changes places with the ring's free one, and the proxy reads it where it
 * lies ({@link #pollOutbound(OutboundReader)}): no copy between component and encoder. Nothing on
 * {@link #deliver}, {@link #pollOutbound} or {@link CrossContextPublisher#publish} allocates.
 */
public final class CrossContextRouter implements CrossContextEndpoint {
    /** Channel table size; ids are {@code generation << 8 | slot}. */
    public static final int MAX_CHANNELS = 256;
    /** Name the proxy's intents carry as their RT-side sender endpoint. */
    public static final String PROXY_SENDER = "xcc-proxy";

    // Copy-on-write: deploy/undeploy publish a new array; the proxy's lookups read one volatile
    // reference and plain elements (no VarHandle on the hot path).
    private volatile Entry[] table = new Entry[MAX_CHANNELS];
    private final int[] generations = new int[MAX_CHANNELS];
    private final int lowestPriority;

    // Outbound ring: one slot = one intent holder + the entry it counts against. A publisher swaps
    // its filled holder for the free one at the tail; the reader reads the head's holder in place.
    private final CrossContextIntent[] ring;
    private final Entry[] ringOwner;
    private final PiMutex outLock = new PiMutex("cross-context outbound ring");
    private long head;
    private long tail;
    private long reservedCapacity;
    private long outboundDropped;

    // deliver() is meant for one proxy thread; the lock keeps two callers from sharing the closure.
    // All locks here are priority-inheritance mutexes: RT publishers and the proxy contend on them.
    private final PiMutex deliverLock = new PiMutex("cross-context deliver");
    private final InboundFill fill = new InboundFill();
    // The outbound ring's one reader at a time: the head's holder is read outside outLock.
    private final PiMutex pollLock = new PiMutex("cross-context outbound reader");
    private final CopyOut copyOut = new CopyOut();

    /**
     * @param lowestPriority the cell's lowest real-time priority: inbound intents queue at it
     * @param outboundCapacity slots in the shared outbound ring
     */
    public CrossContextRouter(int lowestPriority, int outboundCapacity) {
        this.lowestPriority = lowestPriority;
        this.ring = new CrossContextIntent[outboundCapacity];
        this.ringOwner = new Entry[outboundCapacity];
        for (int i = 0; i < outboundCapacity; i++) {
            ring[i] = new CrossContextIntent();
        }
    }

    /** One declared channel. */
    public final class Entry implements CrossContextPublisher {
        final int id;
        final String appName;
        final ChannelDecl decl;
        final byte[] nameBytes;
        final byte[][] allowed;
        final boolean anySender;
        final MessageChannel inbound;
        /** The request being delivered now (under deliverLock); {@link #proxySender} stamps it. */
        final CrossContextOrigin origin = new CrossContextOrigin();
        final ChannelSender proxySender;
        /** Filled by a publisher, then swapped into the ring; publishers of this channel share it. */
        CrossContextIntent scratch = new CrossContextIntent();
        final PiMutex publishLock;
        volatile boolean open = true;
        int outstanding;
        long published;
        long refused;

        Entry(int id, String appName, ChannelDecl decl, MessageChannel inbound) {
            this.id = id;
            this.appName = appName;
            this.decl = decl;
            this.publishLock = new PiMutex("cross-context channel '" + decl.name() + "'");
            this.nameBytes = decl.name().getBytes(StandardCharsets.US_ASCII);
            this.anySender = decl.allowedSenders().contains("*");
            this.allowed = new byte[decl.allowedSenders().size()][];
            for (int i = 0; i < allowed.length; i++) {
                allowed[i] = decl.allowedSenders().get(i).getBytes(StandardCharsets.US_ASCII);
            }
            this.inbound = inbound;
            this.proxySender = ChannelSender.relay(decl.name(), PROXY_SENDER, lowestPriority, origin);
        }

        public int id() { return id; }
        public String appName() { return appName; }
        public ChannelDecl decl() { return decl; }
        public MessageChannel inbound() { return inbound; }

        @Override
        public String channelName() { return decl.name(); }

        @Override
        public int publish(CrossContextClosure closure) {
            return enqueue(closure, null);
        }

        @Override
        public int reply(RealtimeIntent request, CrossContextClosure closure) {
            return enqueue(closure, request);
        }

        /** Fills {@link #scratch} and queues it; the transport fields come from {@code request} (null: none). */
        private int enqueue(CrossContextClosure closure, RealtimeIntent request) {
            if (!decl.direction().outbound()) {
                throw new IllegalStateException("cross-context channel '" + decl.name() + "' is direction 'in'");
            }
            publishLock.lock();
            try {
                if (!open) {
                    refused++;
                    return OUTBOUND_FULL;
                }
                CrossContextIntent s = scratch.clear();
                closure.genMsg(s);
                if (s.payloadLength() > decl.dataSizeBytes()) {
                    throw new IllegalArgumentException("payload of " + s.payloadLength() + " B exceeds the "
                            + decl.dataSizeBytes() + " B declared for cross-context channel '" + decl.name() + "'");
                }
                // channel and transport fields are the runtime's to set
                s.setChannel(nameBytes, 0, nameBytes.length);
                if (request != null) {
                    s.setCorrelationId(request.correlationId());
                    s.setRtReceiveNanos(request.crossContextReceiveNanos());
                    s.setSenderPriority(request.crossContextSenderPriority()); // the requester's class
                } else {
                    s.setCorrelationId(0);
                    s.setRtReceiveNanos(0);
                }
                outLock.lock();
                try {
                    if (outstanding >= decl.capacity() || tail - head >= ring.length) {
                        refused++;
                        outboundDropped++;
                        return OUTBOUND_FULL;
                    }
                    int i = (int) (tail % ring.length);
                    scratch = ring[i]; // the free holder becomes this channel's next scratch
                    ring[i] = s;
                    ringOwner[i] = this;
                    tail++;
                    outstanding++;
                    published++;
                } finally {
                    outLock.unlock();
                }
            } finally {
                publishLock.unlock();
            }
            return PUBLISHED;
        }

        boolean allows(byte[] sender, int off, int len) {
            if (anySender) {
                return true;
            }
            for (byte[] a : allowed) {
                if (a.length == len && java.util.Arrays.equals(a, 0, len, sender, off, off + len)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Copies the application's part of the proxy's intent (action, payload) into a pre-allocated
     * channel message; the relay endpoint has stamped the sender and transport fields already.
     */
    private static final class InboundFill implements MessageClosure {
        CrossContextIntent in;

        @Override
        public void genMsg(RealtimeIntent m) {
            CrossContextIntent src = in;
            m.setAction(src.action(), 0, src.actionLength());
            m.setPayload(src.payload(), 0, src.payloadLength());
        }
    }

    /** The copying reader behind {@link #pollOutbound(CrossContextIntent)}. */
    private static final class CopyOut implements OutboundReader {
        CrossContextIntent into;

        @Override
        public void read(CrossContextIntent out) {
            into.copyFrom(out);
        }
    }

    // ------------------------------------------------------------------ registration (bootstrap)

    /**
     * Registers a channel of a deployed application.
     *
     * @throws IllegalStateException if a channel of that name is already registered, the table is
     *     full, or the outbound ring cannot give the channel its quota
     */
    public synchronized Entry register(String appName, ChannelDecl decl, MessageChannel inbound) {
        int freeSlot = -1;
        Entry[] t = table;
        for (int i = 0; i < MAX_CHANNELS; i++) {
            Entry e = t[i];
            if (e == null) {
                if (freeSlot < 0) {
                    freeSlot = i;
                }
            } else if (e.decl.name().equals(decl.name())) {
                throw new IllegalStateException("cross-context channel '" + decl.name()
                        + "' is already declared by application '" + e.appName + "'");
            }
        }
        if (freeSlot < 0) {
            throw new IllegalStateException("no room for more than " + MAX_CHANNELS + " cross-context channels");
        }
        int quota = decl.direction().outbound() ? decl.capacity() : 0;
        outLock.lock();
        try {
            if (reservedCapacity + quota > ring.length) {
                throw new IllegalStateException("the outbound ring (" + ring.length + " slots) cannot hold channel '"
                        + decl.name() + "' (capacity " + quota + ") beside the " + reservedCapacity + " slots in use");
            }
            reservedCapacity += quota;
        } finally {
            outLock.unlock();
        }
        int gen = ++generations[freeSlot] & 0x7fffff;
        Entry e = new Entry(gen << 8 | freeSlot, appName, decl, inbound);
        Entry[] copy = t.clone();
        copy[freeSlot] = e;
        table = copy;
        return e;
    }

    /** Closes and removes a channel; its id is rejected from now on. */
    public synchronized void unregister(Entry e) {
        e.open = false;
        int slot = e.id & 0xff;
        Entry[] t = table;
        if (t[slot] == e) {
            Entry[] copy = t.clone();
            copy[slot] = null;
            table = copy;
            outLock.lock();
            try {
                reservedCapacity -= e.decl.direction().outbound() ? e.decl.capacity() : 0;
            } finally {
                outLock.unlock();
            }
        }
    }

    private Entry entry(int channelId) {
        if (channelId < 0) {
            return null;
        }
        Entry e = table[channelId & 0xff];
        return e != null && e.id == channelId ? e : null;
    }

    // ------------------------------------------------------------------ CrossContextEndpoint

    @Override
    public int channelId(byte[] name, int off, int len) {
        Entry[] t = table;
        for (int i = 0; i < MAX_CHANNELS; i++) {
            Entry e = t[i];
            if (e != null && e.nameBytes.length == len
                    && java.util.Arrays.equals(e.nameBytes, 0, len, name, off, off + len)) {
                return e.id;
            }
        }
        return -1;
    }

    @Override
    public boolean mayReceiveFrom(int channelId, byte[] sender, int off, int len, int senderPriority) {
        return admit(entry(channelId), sender, off, len, senderPriority) == DELIVERED;
    }

    /**
     * The admission check, the one place it is made: the channel is declared, takes inbound
     * intents, and lists the sender; the priority is on the wire's scale (0..99).
     *
     * @return {@link #DELIVERED} if admitted, else the refusal's code
     */
    private static int admit(Entry e, byte[] sender, int off, int len, int senderPriority) {
        if (e == null) {
            return NO_SUCH_CHANNEL;
        }
        if (!e.decl.direction().inbound()) {
            return WRONG_DIRECTION;
        }
        if (senderPriority < 0 || senderPriority > 99 || !e.allows(sender, off, len)) {
            return SENDER_NOT_ALLOWED;
        }
        return DELIVERED;
    }

    @Override
    public int deliver(int channelId, CrossContextIntent in) {
        Entry e = entry(channelId);
        int admitted = admit(e, in.sender(), 0, in.senderLength(), in.senderPriority());
        if (admitted != DELIVERED) {
            return admitted;
        }
        if (!e.open) {
            return NOT_RUNNING;
        }
        if (in.payloadLength() > e.decl.dataSizeBytes()) {
            return PAYLOAD_TOO_LARGE;
        }
        deliverLock.lock();
        try {
            e.origin.set(in.sender(), 0, in.senderLength(), in.senderPriority(), in.correlationId(), in.rtReceiveNanos());
            fill.in = in;
            int rc = e.inbound.send(e.proxySender, fill);
            fill.in = null;
            return rc == ChannelSender.SENT ? DELIVERED : CHANNEL_FULL;
        } finally {
            deliverLock.unlock();
        }
    }

    @Override
    public boolean pollOutbound(CrossContextIntent out) {
        return poll(copyOut, out);
    }

    @Override
    public boolean pollOutbound(OutboundReader reader) {
        return poll(reader, null);
    }

    /** One reader at a time; {@code copyInto} is where {@link #copyOut} copies to (null if unused). */
    private boolean poll(OutboundReader reader, CrossContextIntent copyInto) {
        pollLock.lock();
        try {
            copyOut.into = copyInto;
            return readHead(reader);
        } finally {
            copyOut.into = null;
            pollLock.unlock();
        }
    }

    /** Under pollLock: lets {@code reader} read the head's holder in place, then frees the slot. */
    private boolean readHead(OutboundReader reader) {
        int i;
        CrossContextIntent next;
        outLock.lock();
        try {
            if (head == tail) {
                return false;
            }
            i = (int) (head % ring.length);
            next = ring[i];
        } finally {
            outLock.unlock();
        }
        // Publishers only swap holders at the tail, and the head stays put until this reader moves
        // it: the holder is the reader's until then, read without outLock.
        try {
            reader.read(next);
        } finally {
            outLock.lock();
            try {
                Entry owner = ringOwner[i];
                ringOwner[i] = null;
                if (owner != null) {
                    owner.outstanding--;
                }
                head++;
            } finally {
                outLock.unlock();
            }
        }
        return true;
    }

    @Override
    public long outboundDropped() {
        outLock.lock();
        try {
            return outboundDropped;
        } finally {
            outLock.unlock();
        }
    }

    /** Intents queued outbound now. */
    public int outboundPending() {
        outLock.lock();
        try {
            return (int) (tail - head);
        } finally {
            outLock.unlock();
        }
    }
}
