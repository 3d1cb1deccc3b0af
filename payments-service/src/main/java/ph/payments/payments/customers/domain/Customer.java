package ph.payments.payments.customers.domain;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * A customer in a merchant's directory (SPEC part 2 "Customer"). {@code email} is unique per
 * merchant and environment, compared case-insensitively; {@code receiptsToken} is the unguessable
 * part of the public receipt-history URL ({@link ReceiptsTokens}).
 */
public record Customer(
    String id,
    String merchantId,
    String environment,
    String name,
    String email,
    String phone,
    Address address,
    ObjectNode metadata,
    String receiptsToken,
    Instant createdAt,
    Instant updatedAt) {}
