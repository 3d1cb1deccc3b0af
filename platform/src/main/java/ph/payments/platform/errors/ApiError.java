package ph.payments.platform.errors;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/**
 * The inner object of the error envelope.
 *
 * @param code stable, for programs
 * @param message for people
 * @param issues field name to what is wrong with it; only on 400, otherwise absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApiError(String code, String message, Map<String, String> issues) {}
