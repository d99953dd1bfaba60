package ksim.groundtruth;

import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.Errors;

/** Kafka's name for an exception's error, as the history writes it (ksim's names where they differ). */
public final class ErrorNames {
    private ErrorNames() {}

    public static String of(Throwable e) {
        Throwable cause = e;
        while (cause instanceof java.util.concurrent.ExecutionException || cause instanceof org.apache.kafka.common.KafkaException
                && cause.getCause() instanceof org.apache.kafka.common.errors.ApiException) {
            if (cause.getCause() == null) break;
            cause = cause.getCause();
        }
        // A send's TimeoutException is delivery.timeout.ms expiring the batch (ksim: DELIVERY_TIMEOUT)
        if (cause instanceof TimeoutException) return "DELIVERY_TIMEOUT";
        Errors error = Errors.forException(cause);
        return error == Errors.UNKNOWN_SERVER_ERROR ? cause.getClass().getSimpleName() : error.name();
    }
}
