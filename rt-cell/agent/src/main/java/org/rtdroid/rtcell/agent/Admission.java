package org.rtdroid.rtcell.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.rtdroid.runtime.boot.CellConfig;
import org.rtdroid.runtime.manifest.Manifest;
import org.rtdroid.runtime.validation.Cell;
import org.rtdroid.runtime.validation.ModelBuilder;
import org.rtdroid.runtime.validation.ResponseTimeAnalysis;
import org.rtdroid.runtime.validation.SystemModel;
import org.rtdroid.runtime.validation.ValidateMain;
import org.rtdroid.runtime.validation.Validation;
import org.rtdroid.runtime.validation.ValidationReport;

/**
 * Admission control: the runtime's static validation ({@code org.rtdroid.runtime.validation}, the
 * analysis {@code rtdroid validate} runs) over every deployed application plus the new one, before
 * any class of the new one is loaded. A deployment whose analysis fails is refused with the
 * analysis's reasons ({@code UNSCHEDULABLE: ...}, {@code CHANNEL_OVERFLOW: ...},
 * {@code OVER_BUDGET: ...}) under the result code of the first reason's kind; what already runs is
 * not touched.
 * Components that declare no cost are not analysed (their {@code INCOMPLETE} reasons do not refuse
 * a deployment: bundles without timing declarations still deploy).
 *
 * <p>It keeps the worst-case response time of every analysed task of the applications that run, from
 * the analysis of exactly those applications (redone when one is admitted or removed), so that
 * {@code rtdroid rt services} shows the model beside the measured worst response.
 *
 * <p>On a cell of several CPUs the running components stay on the CPUs the runtime pinned them to
 * ({@code RuntimeHost#partition}): the analysis places only the new application's components, with
 * the function the runtime then places them by, so the partition analysed is the one that runs.
 */
final class Admission {
    /** The refusal text must fit the DeployResult's text (255 bytes); the first reason leads. */
    private static final int MAX_REASON_CHARS = 200;

    private final Cell cell;
    private final Supplier<Map<String, Integer>> running;
    private final Map<String, SystemModel> admitted = new LinkedHashMap<>();
    private volatile Map<String, Long> wcrtNanos = Map.of();

    /** @param running the CPU index of every running component ({@code RuntimeHost#partition}) */
    Admission(CellConfig config, Supplier<Map<String, Integer>> running) {
        this.cell = new Cell("rt cell", config.cpuCount(), config.budgetBytes(), ValidateMain.DEFAULT_RUNTIME_RESERVED_BYTES);
        this.running = running;
    }

    /**
     * @return the new application's model, to {@link #admit} once it runs
     * @throws DeployRefusal UNSCHEDULABLE, CHANNEL_OVERFLOW or OVER_BUDGET (the first reason's kind) when the analysis of everything
     *     deployed plus it fails
     */
    SystemModel check(Manifest manifest) throws DeployRefusal {
        SystemModel model = ModelBuilder.build(manifest, manifest.timing());
        List<SystemModel> all = new ArrayList<>(admitted.values());
        all.add(model);
        ValidationReport report;
        try {
            report = Validation.run(SystemModel.union(all), cell, running.get());
        } catch (RuntimeException e) {  // an analysis that cannot be completed admits nothing
            throw new DeployRefusal(ResultCode.BAD_MANIFEST, manifest.sourceName() + ": the analysis failed: " + e, e);
        }
        List<String> refusals = report.reasons().stream().filter(r -> !r.startsWith("INCOMPLETE:")).toList();
        if (!refusals.isEmpty()) {
            String text = refusals.get(0);
            int code = ResultCode.ofAdmissionReason(text);
            if (text.length() > MAX_REASON_CHARS) {
                text = text.substring(0, MAX_REASON_CHARS - 3) + "...";
            }
            throw new DeployRefusal(code, text + (refusals.size() > 1 ? " (+" + (refusals.size() - 1)
                    + " more)" : ""));
        }
        return model;
    }

    void admit(String app, SystemModel model) {
        admitted.put(app, model);
        analyseAdmitted();
    }

    void remove(String app) {
        admitted.remove(app);
        analyseAdmitted();
    }

    /**
     * The analysed worst-case response time of a task ({@link org.rtdroid.runtime.validation.Task#key}:
     * {@code app/task} for a periodic task, {@code app/Component} for a receiver, a service's own
     * work or a server), or 0 when the analysis of the running applications has no such task.
     */
    long wcrtNanos(String taskKey) {
        return wcrtNanos.getOrDefault(taskKey, 0L);
    }

    private void analyseAdmitted() {
        Map<String, Long> out = new HashMap<>();
        ValidationReport report = Validation.run(SystemModel.union(new ArrayList<>(admitted.values())), cell, running.get());
        for (ValidationReport.Cpu cpu : report.cpus()) {
            for (ResponseTimeAnalysis.Result r : cpu.results()) {
                out.put(r.task().key(), r.wcrtNanos());
            }
        }
        wcrtNanos = Map.copyOf(out);
    }

}
