package ksim.groundtruth;

import java.util.Map;

/** The history's {@code txn} event: a transaction call returned. */
public final class TransactionEvents {
    private TransactionEvents() {}

    public static Map<String, Object> event(int writer, String op, String error) {
        Map<String, Object> e = HistoryWriter.event("txn");
        e.put("writer", writer);
        e.put("op", op);
        e.put("error", error);
        return e;
    }
}
