package ph.payments.payments.products.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import ph.payments.payments.products.domain.Product;
import ph.payments.platform.json.Json;

/**
 * The product resource as SPEC part 2 lists its fields, in that order: what the API returns and
 * what {@code product.stock_adjusted} carries (with its {@code adjustment}).
 */
public final class ProductJson {

  public static ObjectNode of(Product p) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("id", p.id());
    json.put("object", "product");
    json.put("environment", p.environment());
    json.put("name", p.name());
    json.put("description", p.description());
    json.put("price", p.price());
    json.put("currency", p.currency());
    json.put("sku", p.sku());
    json.put("barcode", p.barcode());
    json.put("image_url", p.imageUrl());
    json.put("track_inventory", p.trackInventory());
    json.put("stock", p.stock());
    json.put("in_stock", p.inStock());
    json.put("low_stock_threshold", p.lowStockThreshold());
    json.put("low_stock", p.lowStock());
    json.put("archived", p.archived());
    json.put("category", p.category());
    json.set("metadata", Json.tree(p.metadataJson()));
    json.put("created", p.createdAt().getEpochSecond());
    json.put("updated", p.updatedAt().getEpochSecond());
    return json;
  }

  private ProductJson() {}
}
