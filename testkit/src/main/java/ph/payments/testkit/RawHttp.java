package ph.payments.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket with the request target sent exactly as written: HTTP clients
 * normalise {@code //}, {@code ..} and percent-escapes before sending, which would hide the path
 * tricks a filter must withstand.
 */
public final class RawHttp {

  /** Status and body of one answer; status 400 with "(connection closed)" when none came. */
  public record Reply(int status, String body) {
    @Override
    public String toString() {
      return status + " " + (body.length() > 200 ? body.substring(0, 200) : body);
    }
  }

  /** GET {@code target} on 127.0.0.1:{@code port}, one request per connection. */
  public static Reply get(int port, String target, Map<String, String> headers) {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      StringBuilder request =
          new StringBuilder("GET ")
              .append(target)
              .append(" HTTP/1.1\r\nHost: 127.0.0.1:")
              .append(port)
              .append("\r\nConnection: close\r\n");
      headers.forEach(
          (name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
      request.append("\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      String response = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
      if (response.length() < 12) {
        return new Reply(400, "(connection closed)"); // refused outright
      }
      int status = Integer.parseInt(response.substring(9, 12));
      int bodyAt = response.indexOf("\r\n\r\n");
      return new Reply(status, bodyAt < 0 ? "" : response.substring(bodyAt + 4));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private RawHttp() {}
}
