package dev.sluice.examples.demo.report;

import dev.sluice.examples.demo.fleet.CallResult;
import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The headline figures of one client's run, each with one definition, computed from its
 * {@link RunReport}:
 *
 * <ul>
 *   <li><b>peak offered</b>: the most HTTP attempts (first attempts and retries) sent in one second
 *       of the run, and that as a multiple of the fleet's limit (the sum of its keys' sustained burst
 *       rates, {@link RunReport#limitPerSecond()}); <b>peak offered in the blip</b> the same over the
 *       seconds that overlap the blip; and peak offered against <b>normal traffic</b>, the mean
 *       attempts/s sent in the {@value #NORMAL_WINDOW_SECONDS} s before the blip (the incident's
 *       "200 became 600" compares with it: a client near its limit);</li>
 *   <li><b>retries in the blip</b>: attempts that repeated a call, sent in the seconds that overlap
 *       the blip, as a share of the calls made in those seconds (the normal traffic; SPEC §8 wants
 *       at most 10 %);</li>
 *   <li><b>wire 429s</b>: 429 answers the fleet received, {@code rate_limited} and
 *       {@code quota_exhausted};</li>
 *   <li><b>useful work</b>: labels Shiplane created once per order, per second of the run; and calls
 *       that succeeded out of the calls made (every call counts once, however it ended: refused
 *       locally, failed at once on a spent quota, or failed after its attempts);</li>
 *   <li><b>back to normal</b>: seconds from the blip's end to the first second from which, three
 *       seconds in a row, the calls made in that second succeed at least {@value #RECOVERED_PERCENT} %
 *       as often as those made in the 5 s before the blip; empty when that never happens in the run, or
 *       when fewer than {@value #MIN_NORMAL_PERCENT} % of the calls before the blip succeeded (there was no
 *       normal to return to);</li>
 *   <li><b>labels bought twice</b>: labels Shiplane created for an order that already had one.</li>
 * </ul>
 *
 * @param peakOffered attempts/s
 * @param peakOfferedInBlip attempts/s, over the blip's seconds (0 without a blip)
 * @param normalOffered mean attempts/s in the {@value #NORMAL_WINDOW_SECONDS} s before the blip (0
 *     without a blip, or when the blip starts at 0 s)
 * @param limitPerSecond the fleet's limit, units/s (0 when unknown)
 * @param retriesInBlip retries sent in the blip's seconds
 * @param callsInBlip calls made in the blip's seconds
 * @param wire429 429 answers
 * @param labelsPerSecond labels created once per order, per second run
 * @param callsMade calls made
 * @param callsSucceeded calls that succeeded
 * @param recoverySeconds seconds from the blip's end back to normal, if it got there
 * @param duplicateLabels labels bought twice
 */
public record Headline(
        long peakOffered,
        long peakOfferedInBlip,
        double normalOffered,
        double limitPerSecond,
        long retriesInBlip,
        long callsInBlip,
        long wire429,
        double labelsPerSecond,
        long callsMade,
        long callsSucceeded,
        OptionalInt recoverySeconds,
        long duplicateLabels) {

    /** A second counts as back to normal when its calls succeed this often, relative to before the blip. */
    static final int RECOVERED_PERCENT = 95;
    /** Below this success share before the blip there is no "normal" to return to. */
    static final int MIN_NORMAL_PERCENT = 50;
    /** Seconds before the blip that set "normal". */
    static final int NORMAL_WINDOW_SECONDS = 5;
    /** Seconds in a row that must be back to normal. */
    static final int RECOVERED_RUN_SECONDS = 3;

    /** The headline figures of {@code run}. */
    public static Headline of(RunReport run) {
        Map<Series, Long> t = run.totals();
        long peakInBlip = 0;
        long retriesInBlip = 0;
        long callsInBlip = 0;
        for (SecondCounts c : run.seconds()) {
            if (run.inBlip(c.second())) {
                peakInBlip = Math.max(peakInBlip, c.get(Series.OFFERED));
                retriesInBlip += c.get(Series.RETRIES);
                callsInBlip += c.get(Series.CALLS);
            }
        }
        int seconds = Math.max(1, run.seconds().size());
        long unique = run.upstream().labelsCreated() - run.upstream().duplicateLabels();
        return new Headline(run.peak(Series.OFFERED), peakInBlip, normalOffered(run), run.limitPerSecond(), retriesInBlip, callsInBlip,
                t.get(Series.RATE_LIMITED) + t.get(Series.QUOTA_EXHAUSTED), (double) unique / seconds,
                run.calls().calls(), run.calls().get(CallResult.Kind.SUCCEEDED), recovery(run),
                run.upstream().duplicateLabels());
    }

    /** Peak offered as a multiple of the limit (0 when the limit is unknown). */
    public double peakRatio() {
        return limitPerSecond > 0 ? peakOffered / limitPerSecond : 0;
    }

    /** Peak offered as a multiple of normal traffic (0 when there is none to compare with). */
    public double peakVsNormal() {
        return normalOffered > 0 ? peakOffered / normalOffered : 0;
    }

    /** Peak offered in the blip as a multiple of the limit. */
    public double peakInBlipRatio() {
        return limitPerSecond > 0 ? peakOfferedInBlip / limitPerSecond : 0;
    }

    /** Retries in the blip as a share of the calls made then (0..; 0 without calls). */
    public double retryShareInBlip() {
        return callsInBlip == 0 ? 0 : (double) retriesInBlip / callsInBlip;
    }

    /** Calls succeeded as a share of calls made. */
    public double successShare() {
        return callsMade == 0 ? 0 : (double) callsSucceeded / callsMade;
    }

    private static double normalOffered(RunReport run) {
        if (run.blip().isEmpty()) {
            return 0;
        }
        List<SecondCounts> s = run.seconds();
        int from = (int) Math.floor(run.blip().get().fromSecond());
        long offered = 0;
        int n = 0;
        for (int i = Math.max(0, from - NORMAL_WINDOW_SECONDS); i < Math.min(from, s.size()); i++) {
            offered += s.get(i).get(Series.OFFERED);
            n++;
        }
        return n == 0 ? 0 : (double) offered / n;
    }

    private static OptionalInt recovery(RunReport run) {
        if (run.blip().isEmpty()) {
            return OptionalInt.empty();
        }
        List<SecondCounts> s = run.seconds();
        int from = (int) Math.floor(run.blip().get().fromSecond());
        int end = (int) Math.ceil(run.blip().get().toSecond());
        long calls = 0;
        long ok = 0;
        for (int i = Math.max(0, from - NORMAL_WINDOW_SECONDS); i < Math.min(from, s.size()); i++) {
            calls += s.get(i).get(Series.CALLS);
            ok += s.get(i).get(Series.SUCCEEDED);
        }
        if (calls == 0 || ok * 100 < MIN_NORMAL_PERCENT * calls) {
            return OptionalInt.empty();
        }
        double normal = (double) ok / calls;
        for (int i = end; i + RECOVERED_RUN_SECONDS <= s.size(); i++) {
            boolean back = true;
            for (int j = i; j < i + RECOVERED_RUN_SECONDS && back; j++) {
                long c = s.get(j).get(Series.CALLS);
                back = c > 0 && (double) s.get(j).get(Series.SUCCEEDED) / c * 100 >= RECOVERED_PERCENT * normal;
            }
            if (back) {
                return OptionalInt.of(i - end);
            }
        }
        return OptionalInt.empty();
    }
}
