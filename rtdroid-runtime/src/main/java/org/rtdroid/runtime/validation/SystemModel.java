package org.rtdroid.runtime.validation;

import java.util.ArrayList;
import java.util.List;

/**
 * Everything the analysis reads: the tasks of every application to be validated together, the
 * critical sections that give blocking terms, the channels, the memory figures, and the problems
 * found while building the model (a component without a cost, say), each a reason of the verdict.
 */
public record SystemModel(List<Task> tasks, List<CriticalSection> criticalSections, List<ChannelModel> channels,
                          List<MemoryFigure> memory, List<String> problems) {

    /** The model of several applications validated together (deployed + new). */
    public static SystemModel union(List<SystemModel> models) {
        List<Task> t = new ArrayList<>();
        List<CriticalSection> cs = new ArrayList<>();
        List<ChannelModel> ch = new ArrayList<>();
        List<MemoryFigure> mem = new ArrayList<>();
        List<String> p = new ArrayList<>();
        for (SystemModel m : models) {
            t.addAll(m.tasks);
            cs.addAll(m.criticalSections);
            ch.addAll(m.channels);
            mem.addAll(m.memory);
            p.addAll(m.problems);
        }
        return new SystemModel(List.copyOf(t), List.copyOf(cs), List.copyOf(ch), List.copyOf(mem), List.copyOf(p));
    }
}
