package ph.payments.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.zxing.EncodeHintType;
import com.google.zxing.common.BitMatrix;
import com.google.zxing.qrcode.QRCodeWriter;
import java.awt.image.BufferedImage;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The browser kit itself, without the system: Debian's Chromium starts through
 * /usr/bin/chromedriver in a 360 px viewport, runs a page's script, saves a 360 px wide PNG, and
 * the QR decoding that the static-QR scenario relies on reads an SVG QR code as the browser draws
 * it. Seconds, so a broken kit shows up before any system starts.
 */
class BrowserKitIT {

  private static Browser browser;

  @BeforeAll
  static void start() throws Exception {
    browser = Browser.start();
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.close();
    }
  }

  @Test
  void aPhoneSizedHeadlessChromiumRunsScriptsAndSavesScreenshots() throws Exception {
    String html =
        "<!doctype html><html lang=en><meta name=viewport content='width=device-width'>"
            + "<button id=b onclick=\"document.getElementById('s').textContent='clicked'\">Go</button>"
            + "<p id=s>waiting</p>";
    browser.open(
        "data:text/html;charset=utf-8,"
            + URLEncoder.encode(html, StandardCharsets.UTF_8).replace("+", "%20"));
    assertEquals(Browser.WIDTH, browser.viewportWidth(), "a phone-sized viewport");
    assertEquals("waiting", browser.find("#s").getText());
    browser.find("#b").click();
    browser
        .waitUpTo(Duration.ofSeconds(5))
        .until(ExpectedConditions.textToBe(org.openqa.selenium.By.id("s"), "clicked"));
    try {
      browser.driver.switchTo().alert();
      throw new AssertionError("no alert was opened");
    } catch (NoAlertPresentException expected) {
      // as expected
    }
    Path shot = browser.screenshot("kit-check");
    BufferedImage image = ImageIO.read(shot.toFile());
    assertEquals(Browser.WIDTH, image.getWidth(), "screenshots are as wide as the phone");
    assertTrue(image.getHeight() >= Browser.HEIGHT, "at least one screen high");
  }

  @Test
  void aQrCodeDrawnFromSvgByTheBrowserDecodes() throws Exception {
    String text = "http://127.0.0.1:8080/l/AbCdEfGh12345678";
    BitMatrix matrix =
        new QRCodeWriter()
            .encode(
                text,
                com.google.zxing.BarcodeFormat.QR_CODE,
                0,
                0,
                Map.of(EncodeHintType.MARGIN, 4));
    StringBuilder svg =
        new StringBuilder(
            "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 "
                + matrix.getWidth()
                + " "
                + matrix.getHeight()
                + "' width='300' height='300' shape-rendering='crispEdges'>"
                + "<rect width='100%' height='100%' fill='#fff'/><path fill='#000' d='");
    for (int y = 0; y < matrix.getHeight(); y++) {
      for (int x = 0; x < matrix.getWidth(); x++) {
        if (matrix.get(x, y)) {
          svg.append("M").append(x).append(' ').append(y).append("h1v1h-1z");
        }
      }
    }
    svg.append("'/></svg>");
    Path file = Files.createTempFile("kit-qr", ".svg");
    Files.writeString(file, svg);
    browser.open(file.toUri().toString());
    byte[] png = browser.viewportPng();
    Files.createDirectories(Browser.SCREENSHOTS);
    Files.write(Browser.SCREENSHOTS.resolve("kit-qr.png"), png);
    assertEquals(text, QrCodes.decode(png));
    Files.delete(file);
  }
}
