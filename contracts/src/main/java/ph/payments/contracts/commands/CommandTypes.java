package ph.payments.contracts.commands;

/** Names of command types; the Kafka message type of a command is {@code command.<type>}. */
public final class CommandTypes {

  /** Round trip through the command path with no effect; used by operators and smoke tests. */
  public static final String SYSTEM_PING = "system.ping";

  /** Creates a customer (payments-service). */
  public static final String CUSTOMERS_CREATE = "customers.create";

  /** Updates a customer (payments-service). */
  public static final String CUSTOMERS_UPDATE = "customers.update";

  /** Products (payments-service, issue 15): create, update, and a stock adjustment. */
  public static final String PRODUCTS_CREATE = "products.create";

  public static final String PRODUCTS_UPDATE = "products.update";
  public static final String PRODUCTS_ADJUST_STOCK = "products.adjust_stock";

  /**
   * The hosted checkout page's sandbox buttons and sandbox card form (payments-service, issue 16):
   * what the customer did, told to the sandbox provider, whose signed callbacks then move the
   * payment. Test mode only; the merchant and environment come from the payment's public checkout
   * read, never from the form.
   */
  public static final String CHECKOUT_SANDBOX_ACTION = "checkout.sandbox_action";

  /** Payment links (payments-service, issue 16): create and update. */
  public static final String PAYMENT_LINKS_CREATE = "payment_links.create";

  public static final String PAYMENT_LINKS_UPDATE = "payment_links.update";

  /** Static QR codes (payments-service, issue 16): create, update and archive. */
  public static final String STATIC_QRS_CREATE = "static_qrs.create";

  public static final String STATIC_QRS_UPDATE = "static_qrs.update";
  public static final String STATIC_QRS_ARCHIVE = "static_qrs.archive";

  /** Invoices (payments-service, issue 17): create, update, send and void. */
  public static final String INVOICES_CREATE = "invoices.create";

  public static final String INVOICES_UPDATE = "invoices.update";
  public static final String INVOICES_SEND = "invoices.send";
  public static final String INVOICES_VOID = "invoices.void";

  /**
   * An operator's activation-fee invoice of a merchant (operator API, issue 17): created sent and
   * unnumbered, and voided by the operator only.
   */
  public static final String ACTIVATION_FEES_CREATE = "activation_fees.create";

  public static final String ACTIVATION_FEES_VOID = "activation_fees.void";

  /** Message type of a reply on {@link ph.payments.contracts.Topics#COMMAND_REPLIES}. */
  public static final String REPLY = "command.reply";

  public static String messageType(String commandType) {
    return "command." + commandType;
  }

  private CommandTypes() {}
}
