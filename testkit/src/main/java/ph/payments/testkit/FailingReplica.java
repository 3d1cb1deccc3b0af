package ph.payments.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * A replica of an internal service that fails as a dying process does, on a real socket of
 * 127.0.0.1, for callers that must go to the next replica (issue 20): it reads each request whole
 * and then either drops the connection with a reset and no answer ({@link #dropping}: killed while
 * it held the request, perhaps after applying it) or keeps it open without a word until it is
 * closed ({@link #silent}: hung). {@link #refusingPort()} is a port where nothing listens at all.
 */
public final class FailingReplica implements AutoCloseable {

  /** One request as it arrived. */
  public record Request(String method, String path, byte[] body) {
    @Override
    public String toString() {
      return method + " " + path;
    }
  }

  private final ServerSocket socket;
  private final boolean answersNever;
  private final Consumer<Request> onRequest;
  private final ConcurrentLinkedQueue<Request> received = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Socket> held = new ConcurrentLinkedQueue<>();

  private FailingReplica(boolean answersNever, Consumer<Request> onRequest) throws IOException {
    this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.answersNever = answersNever;
    this.onRequest = onRequest;
    Thread acceptor = new Thread(this::serve, "failing-replica-" + socket.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Takes each request, passes it to {@code onRequest} (what the replica did before it died). */
  public static FailingReplica dropping(Consumer<Request> onRequest) {
    try {
      return new FailingReplica(false, onRequest);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static FailingReplica dropping() {
    return dropping(request -> {});
  }

  /** Takes each request and never answers; the caller's timeout ends it. */
  public static FailingReplica silent() {
    try {
      return new FailingReplica(true, request -> {});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A port of 127.0.0.1 that was free a moment ago: connecting to it is refused. */
  public static int refusingPort() {
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return free.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String url() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  /** The requests it took, oldest first. */
  public List<Request> received() {
    return List.copyOf(received);
  }

  /** Forgets the requests taken so far. */
  public void forget() {
    received.clear();
  }

  @Override
  public void close() {
    try {
      socket.close();
      for (Socket connection : held) {
        connection.close();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void serve() {
    while (!socket.isClosed()) {
      Socket connection;
      try {
        connection = socket.accept();
      } catch (IOException closed) {
        return;
      }
      try {
        Request request = read(connection.getInputStream());
        received.add(request);
        onRequest.accept(request);
        if (answersNever) {
          held.add(connection);
          continue;
        }
        connection.setSoLinger(true, 0); // close with a reset, as the kernel does for a killed one
        connection.close();
      } catch (IOException gone) {
        closeQuietly(connection);
      }
    }
  }

  private static Request read(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int last4 = 0;
    int c;
    while (last4 != 0x0d0a0d0a && (c = in.read()) >= 0) {
      head.write(c);
      last4 = (last4 << 8) | c;
    }
    String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
    String[] requestLine = lines[0].split(" ");
    int length = 0;
    for (String line : lines) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(line.indexOf(':') + 1).strip());
      }
    }
    return new Request(requestLine[0], requestLine[1], in.readNBytes(length));
  }

  private static void closeQuietly(Socket connection) {
    try {
      connection.close();
    } catch (IOException ignored) {
      // already gone
    }
  }
}
