package ph.payments.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A real browser for the customer pages: Debian's {@code chromium}, driven through Debian's {@code
 * chromium-driver} ({@code /usr/bin/chromedriver}), headless, in a phone-sized window (360×800 CSS
 * pixels). Both executables are named explicitly, so Selenium Manager never runs and nothing is
 * downloaded at test time (and the surefire configuration sets {@code SE_OFFLINE=true} as well).
 *
 * <p>A missing browser or driver is a failure with instructions, never a skip: {@code
 * bin/ensure-browser} (called by {@code bin/test}, hence by CI) installs both.
 *
 * <p>Paths can be overridden with the environment variables {@code CHROMIUM_BINARY} and {@code
 * CHROMEDRIVER_BINARY} (e.g. on a machine whose packages put them elsewhere).
 */
final class Browser implements AutoCloseable {

  static final int WIDTH = 360;
  static final int HEIGHT = 800;

  static final Path CHROMIUM =
      Path.of(System.getenv().getOrDefault("CHROMIUM_BINARY", "/usr/bin/chromium"));
  static final Path CHROMEDRIVER =
      Path.of(System.getenv().getOrDefault("CHROMEDRIVER_BINARY", "/usr/bin/chromedriver"));

  /** Where screenshots go: {@code e2e/target/screenshots/<name>.png}. */
  static final Path SCREENSHOTS = Path.of("target", "screenshots").toAbsolutePath();

  final ChromeDriver driver;
  private final ChromeDriverService service;

  private Browser(ChromeDriver driver, ChromeDriverService service) {
    this.driver = driver;
    this.service = service;
  }

  /** Fails (never skips) saying how to install them when the browser or its driver is missing. */
  static void requireInstalled() {
    requireExecutable(CHROMIUM, "chromium");
    requireExecutable(CHROMEDRIVER, "chromium-driver");
  }

  /** Starts the browser, or fails (never skips) saying how to install what is missing. */
  static Browser start() throws IOException {
    requireInstalled();
    // The executable named both ways: the system property is what Selenium's DriverFinder checks
    // before it would ever consult Selenium Manager.
    System.setProperty(ChromeDriverService.CHROME_DRIVER_EXE_PROPERTY, CHROMEDRIVER.toString());
    Path logs = Path.of("target").toAbsolutePath();
    Files.createDirectories(logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .withLogFile(logs.resolve("chromedriver.log").toFile())
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox", // root in CI containers
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--lang=en-PH",
        "--window-size=" + WIDTH + "," + HEIGHT);
    ChromeDriver driver;
    try {
      driver = new ChromeDriver(service, options);
    } catch (RuntimeException e) {
      service.stop();
      throw new IllegalStateException(
          "Chromium did not start through "
              + CHROMEDRIVER
              + " (see e2e/target/chromedriver.log). The two Debian packages must be of the same"
              + " version: run bin/ensure-browser, or apt-get install chromium chromium-driver. "
              + e.getMessage(),
          e);
    }
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    Browser browser = new Browser(driver, service);
    browser.resizeViewport(WIDTH, HEIGHT);
    return browser;
  }

  private static void requireExecutable(Path path, String debianPackage) {
    if (!Files.isExecutable(path)) {
      throw new IllegalStateException(
          "The browser tests need Debian's "
              + debianPackage
              + " package: "
              + path
              + " is missing. Run bin/ensure-browser (as root it installs chromium and"
              + " chromium-driver; bin/test and .ci/run call it), or: sudo apt-get install -y"
              + " chromium chromium-driver. These tests fail rather than skip without a browser.");
    }
  }

  /**
   * Makes the page's viewport (window.innerWidth × innerHeight) exactly {@code width × height}: the
   * window's outer size differs from the viewport by whatever the platform adds.
   */
  void resizeViewport(int width, int height) {
    driver.manage().window().setSize(new Dimension(width, height));
    @SuppressWarnings("unchecked")
    List<Number> inner = (List<Number>) js("return [window.innerWidth, window.innerHeight];");
    int dx = width - inner.get(0).intValue();
    int dy = height - inner.get(1).intValue();
    if (dx != 0 || dy != 0) {
      driver.manage().window().setSize(new Dimension(width + dx, height + dy));
    }
  }

  WebDriver open(String url) {
    driver.get(url);
    return driver;
  }

  WebElement find(String css) {
    return driver.findElement(By.cssSelector(css));
  }

  List<WebElement> findAll(String css) {
    return driver.findElements(By.cssSelector(css));
  }

  boolean has(String css) {
    return !findAll(css).isEmpty();
  }

  Object js(String script, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(script, args);
  }

  int viewportWidth() {
    return ((Number) js("return window.innerWidth;")).intValue();
  }

  /** How wide the page's content is; wider than the viewport means sideways scrolling. */
  int contentWidth() {
    return ((Number) js("return document.documentElement.scrollWidth;")).intValue();
  }

  WebDriverWait waitUpTo(Duration timeout) {
    return new WebDriverWait(driver, timeout, Duration.ofMillis(100));
  }

  /**
   * Saves a PNG of the whole page as a phone shows it (360 px wide, the full height one scrolls
   * through) under {@code target/screenshots/<name>.png} and returns its path. Falls back to the
   * viewport when the browser cannot capture beyond it.
   */
  Path screenshot(String name) throws IOException {
    Files.createDirectories(SCREENSHOTS);
    Path file = SCREENSHOTS.resolve(name + ".png");
    byte[] png;
    try {
      Number height =
          (Number)
              js(
                  "return Math.max(document.documentElement.scrollHeight,"
                      + " document.body ? document.body.scrollHeight : 0, window.innerHeight);");
      Map<String, Object> clip =
          Map.of("x", 0, "y", 0, "width", viewportWidth(), "height", height, "scale", 1);
      Map<String, Object> shot =
          driver.executeCdpCommand(
              "Page.captureScreenshot",
              Map.of("format", "png", "captureBeyondViewport", true, "clip", clip));
      png = Base64.getDecoder().decode((String) shot.get("data"));
    } catch (RuntimeException e) {
      png = driver.getScreenshotAs(OutputType.BYTES);
    }
    Files.write(file, png);
    return file;
  }

  /** A PNG of what the viewport shows now, as bytes (for decoding a QR code). */
  byte[] viewportPng() {
    return driver.getScreenshotAs(OutputType.BYTES);
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      service.stop();
    }
  }
}
