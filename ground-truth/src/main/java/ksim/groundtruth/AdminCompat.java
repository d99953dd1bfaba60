package ksim.groundtruth;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;

/**
 * The Admin calls whose form changed between the releases the harness runs (2.4 to 4.x), by
 * reflection, since the harness is compiled against one release's jars at a time:
 * {@code DescribeTopicsResult.allTopicNames()} (3.1, KIP-798; {@code all()} before it, gone in
 * 4.0) and {@code describeTransactions} (3.0, KIP-664; none before it).
 */
final class AdminCompat {
    private AdminCompat() {}

    /** The topics' descriptions by name. */
    static Map<String, TopicDescription> describeTopics(Admin admin, Collection<String> names, long timeoutSeconds)
            throws Exception {
        DescribeTopicsResult result = admin.describeTopics(names);
        Method byName;
        try {
            byName = DescribeTopicsResult.class.getMethod("allTopicNames");
        } catch (NoSuchMethodException before31) {
            byName = DescribeTopicsResult.class.getMethod("all");
        }
        return futureOf(invoke(byName, result), timeoutSeconds);
    }

    /** Whether this release's Admin has describeTransactions (3.0+). */
    static boolean canDescribeTransactions() {
        return describeTransactionsMethod() != null;
    }

    /**
     * The broker coordinating {@code transactionalId}'s transactions (describeTransactions, 3.0+).
     * An ExecutionException carries the broker's error (TransactionalIdNotFoundException: a
     * coordinator that is ready, for an id it has not seen).
     */
    static int transactionCoordinator(Admin admin, String transactionalId, long timeoutSeconds) throws Exception {
        Method describe = describeTransactionsMethod();
        if (describe == null) throw new UnsupportedOperationException("describeTransactions needs Kafka 3.0 or later (KIP-664)");
        Object result = invoke(describe, admin, List.of(transactionalId));
        Map<String, Object> byId = futureOf(invoke(result.getClass().getMethod("all"), result), timeoutSeconds);
        Object description = byId.get(transactionalId);
        return (Integer) invoke(description.getClass().getMethod("coordinatorId"), description);
    }

    /** Whether the failure is the broker saying it knows no such transactional.id (3.0+). */
    static boolean isUnknownTransactionalId(Throwable e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return cause.getClass().getSimpleName().equals("TransactionalIdNotFoundException");
    }

    private static Method describeTransactionsMethod() {
        try {
            return Admin.class.getMethod("describeTransactions", Collection.class);
        } catch (NoSuchMethodException before30) {
            return null;
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T futureOf(Object future, long timeoutSeconds) throws Exception {
        return ((KafkaFuture<T>) future).get(timeoutSeconds, TimeUnit.SECONDS);
    }

    private static Object invoke(Method m, Object target, Object... args) throws Exception {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) throw ex;
            throw e;
        }
    }
}
