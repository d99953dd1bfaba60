package ksim.groundtruth;

import java.util.Random;

/** The keys of a producer's records: none, uniform over {@code count}, or zipf over {@code count}. */
public final class KeyChooser {
    private final Scenario.Keys keys;
    private final Random random;
    private final double[] zipfCdf;

    public KeyChooser(Scenario.Keys keys, Random random) {
        this.keys = keys;
        this.random = random;
        if ("zipf".equals(keys.distribution())) {
            zipfCdf = new double[keys.count()];
            double sum = 0;
            for (int k = 0; k < keys.count(); k++) zipfCdf[k] = sum += 1 / Math.pow(k + 1, keys.exponent());
            for (int k = 0; k < keys.count(); k++) zipfCdf[k] /= sum;
        } else {
            zipfCdf = null;
        }
    }

    /** The next record's key, or null without keys. */
    public String next() {
        switch (keys.distribution()) {
            case "uniform":
                return Integer.toString(random.nextInt(keys.count()));
            case "zipf": {
                int k = java.util.Arrays.binarySearch(zipfCdf, random.nextDouble());
                return Integer.toString(k >= 0 ? k : Math.min(-k - 1, keys.count() - 1));
            }
            default:
                return null;
        }
    }
}
