package ksim.groundtruth;

import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A distribution of durations, read from the text ksim writes for it
 * ({@code exponential(mean=500us)}, {@code uniform(1000us, 5000us)}, {@code lognormal(median=50us, sigma=0.5)})
 * and sampled in ns, never negative.
 */
public record Distribution(String kind, double a, double b) {
    public static final Distribution ZERO = new Distribution("constant", 0, 0);
    private static final Pattern FORM = Pattern.compile("(\\w+)\\((.*)\\)");

    public static Distribution parse(String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) throw new IllegalArgumentException("cannot read the distribution " + text);
        String[] args = m.group(2).split(",");
        double a = args.length > 0 ? value(args[0]) : 0;
        double b = args.length > 1 ? value(args[1]) : 0;
        return new Distribution(m.group(1), a, b);
    }

    /** {@code 500us} is 500,000 ns; a bare number (a sigma, a shape) stays as it is. */
    private static double value(String arg) {
        String v = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1).trim() : arg.trim();
        if (v.endsWith("us")) return Double.parseDouble(v.substring(0, v.length() - 2)) * 1e3;
        return Double.parseDouble(v);
    }

    /**
     * The parameters by kind: constant (value), uniform (min, max), exponential (mean),
     * normal (mean, stddev), lognormal (median, sigma), pareto (scale, shape); times in ns.
     */
    public long sample(Random random) {
        double x = switch (kind) {
            case "constant" -> a;
            case "uniform" -> a + (b - a) * random.nextDouble();
            case "exponential" -> -a * Math.log(1 - random.nextDouble());
            case "normal" -> a + b * random.nextGaussian();
            case "lognormal" -> a * Math.exp(b * random.nextGaussian());
            case "pareto" -> a / Math.pow(1 - random.nextDouble(), 1 / b);
            default -> throw new IllegalArgumentException("unknown distribution " + kind);
        };
        return Math.max(0, Math.round(x));
    }
}
