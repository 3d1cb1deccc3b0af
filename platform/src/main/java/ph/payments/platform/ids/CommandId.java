package ph.payments.platform.ids;

/**
 * A command on its way from the gateway to the owning service. Construction rejects anything but a
 * well-formed id.
 */
public record CommandId(String value) implements TypedId {

  public CommandId {
    IdType.COMMAND.parse(value);
  }

  public static CommandId generate() {
    return new CommandId(IdType.COMMAND.generate());
  }

  @Override
  public String toString() {
    return value;
  }
}
