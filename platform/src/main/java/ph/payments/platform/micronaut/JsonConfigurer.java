package ph.payments.platform.micronaut;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.inject.Singleton;
import ph.payments.platform.json.Json;

/** Gives Micronaut's mapper the system's one JSON configuration ({@link Json}). */
@Singleton
public class JsonConfigurer implements BeanCreatedEventListener<ObjectMapper> {

  @Override
  public ObjectMapper onCreated(BeanCreatedEvent<ObjectMapper> event) {
    return Json.configure(event.getBean());
  }
}
