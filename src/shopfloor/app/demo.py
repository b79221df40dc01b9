"""The demo company: Alder & Pine, a small furniture maker.

Loaded through the registry like any client would, so it is also a smoke test of the
catalogue: every document and every stock figure here came from a tool call.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry

LOCATIONS = [("MAIN", "Main warehouse", False), ("SHOP", "Workshop floor", False)]
SUPPLIERS: list[tuple[str, str, str | None]] = [
    ("Nordic Timber AB", "orders@nordictimber.example", "+46 8 555 0101"),
    ("Fastenright Hardware", "sales@fastenright.example", "+44 20 5550 0102"),
    ("Lacquer & Co", "hello@lacquer.example", "+49 30 5550 0103"),
    ("SoftForm Upholstery", "trade@softform.example", "+31 20 555 0104"),
]
CUSTOMERS: list[tuple[str, str, str | None]] = [
    ("Harbour View Hotel", "purchasing@harbourview.example", "+353 1 555 0201"),
    ("Greenleaf Offices", "facilities@greenleaf.example", "+44 161 555 0202"),
    ("Casa Bonita Restaurants", "compras@casabonita.example", "+34 91 555 0203"),
    ("Westbrook School", "bursar@westbrook.example", "+44 117 555 0204"),
    ("Online shop", "shop@alderpine.example", None),
]

# sku, name, kind, uom, purchase, sales, reorder point, reorder qty, lead days, supplier
ITEMS: list[tuple[str, str, str, str, str, str, str, str, int, str | None]] = [
    ("OAK-BOARD-25", "Oak board 25 mm", "material", "m2", "42.50", "0", "40", "60", 14,
     "Nordic Timber AB"),
    ("OAK-BOARD-40", "Oak board 40 mm", "material", "m2", "61.00", "0", "20", "30", 14,
     "Nordic Timber AB"),
    ("PINE-BOARD-20", "Pine board 20 mm", "material", "m2", "18.40", "0", "30", "50", 10,
     "Nordic Timber AB"),
    ("BIRCH-PLY-18", "Birch plywood 18 mm", "material", "m2", "24.90", "0", "25", "40", 10,
     "Nordic Timber AB"),
    ("OAK-DOWEL-8", "Oak dowel 8 mm", "material", "pcs", "0.12", "0", "2000", "5000", 7,
     "Fastenright Hardware"),
    ("SCREW-4X40", "Wood screw 4x40", "material", "pcs", "0.03", "0", "3000", "10000", 5,
     "Fastenright Hardware"),
    ("SCREW-5X60", "Wood screw 5x60", "material", "pcs", "0.05", "0", "1500", "5000", 5,
     "Fastenright Hardware"),
    ("HINGE-35", "Concealed hinge 35 mm", "material", "pcs", "1.85", "0", "100", "200", 7,
     "Fastenright Hardware"),
    ("DRAWER-RUNNER", "Drawer runner pair 450 mm", "material", "pair", "6.40", "0", "40", "80",
     7, "Fastenright Hardware"),
    ("HANDLE-BRASS", "Brass handle", "material", "pcs", "4.20", "0", "60", "120", 10,
     "Fastenright Hardware"),
    ("STEEL-LEG-72", "Steel table leg 72 cm", "material", "pcs", "11.50", "0", "40", "80", 12,
     "Fastenright Hardware"),
    ("FELT-PAD", "Felt floor pad", "material", "pcs", "0.08", "0", "500", "2000", 5,
     "Fastenright Hardware"),
    ("WOOD-GLUE-1L", "PVA wood glue 1 l", "material", "l", "6.90", "0", "10", "24", 5,
     "Lacquer & Co"),
    ("OIL-HARDWAX", "Hardwax oil 1 l", "material", "l", "28.00", "0", "8", "12", 7,
     "Lacquer & Co"),
    ("LACQUER-MATT", "Matt lacquer 1 l", "material", "l", "19.50", "0", "8", "12", 7,
     "Lacquer & Co"),
    ("SANDPAPER-120", "Sanding disc P120", "material", "pcs", "0.35", "0", "200", "500", 5,
     "Lacquer & Co"),
    ("FOAM-40", "Seat foam 40 mm", "material", "m2", "14.00", "0", "15", "30", 14,
     "SoftForm Upholstery"),
    ("FABRIC-WOOL", "Wool upholstery fabric", "material", "m", "22.00", "0", "20", "40", 14,
     "SoftForm Upholstery"),
    ("WEBBING", "Elastic webbing", "material", "m", "1.10", "0", "100", "200", 14,
     "SoftForm Upholstery"),
    ("STAPLES-10", "Upholstery staples 10 mm", "material", "box", "3.20", "0", "10", "20", 5,
     "SoftForm Upholstery"),
    ("TABLETOP-OAK", "Oak table top 180x90", "intermediate", "pcs", "0", "0", "4", "6", 3, None),
    ("CHAIR-FRAME", "Oak chair frame", "intermediate", "pcs", "0", "0", "10", "20", 2, None),
    ("SEAT-CUSHION", "Upholstered seat cushion", "intermediate", "pcs", "0", "0", "10", "20", 2,
     None),
    ("DRAWER-BOX", "Birch drawer box", "intermediate", "pcs", "0", "0", "8", "12", 2, None),
    ("SHELF-PANEL", "Oak shelf panel 80 cm", "intermediate", "pcs", "0", "0", "12", "24", 1,
     None),
    ("CARCASS-DESK", "Desk carcass", "intermediate", "pcs", "0", "0", "2", "4", 3, None),
    ("BENCH-SEAT", "Oak bench seat 160 cm", "intermediate", "pcs", "0", "0", "2", "4", 2, None),
    ("TABLE-DINING", "Dining table, oak, 180 cm", "product", "pcs", "0", "1450", "2", "4", 5,
     None),
    ("TABLE-CAFE", "Cafe table, oak top, steel legs", "product", "pcs", "0", "420", "4", "8", 4,
     None),
    ("CHAIR-DINING", "Dining chair, oak, wool seat", "product", "pcs", "0", "310", "8", "16", 4,
     None),
    ("BENCH-OAK", "Oak bench 160 cm", "product", "pcs", "0", "690", "2", "4", 4, None),
    ("DESK-WRITING", "Writing desk with drawers", "product", "pcs", "0", "980", "2", "3", 6,
     None),
    ("BOOKSHELF-5", "Bookshelf, 5 shelves", "product", "pcs", "0", "640", "2", "4", 4, None),
    ("SIDEBOARD", "Sideboard, 3 drawers", "product", "pcs", "0", "1180", "1", "2", 7, None),
    ("STOOL-BAR", "Bar stool, oak", "product", "pcs", "0", "240", "4", "8", 3, None),
    ("COFFEE-TABLE", "Coffee table, oak", "product", "pcs", "0", "520", "2", "4", 4, None),
    ("NIGHTSTAND", "Nightstand, 1 drawer", "product", "pcs", "0", "360", "2", "4", 5, None),
    ("CARE-KIT", "Oak care kit", "product", "pcs", "0", "29", "10", "20", 1, None),
    ("GIFT-CARD-50", "Gift card 50", "product", "pcs", "0", "50", "0", "0", 0, None),
    ("SAMPLE-OAK", "Oak finish sample", "product", "pcs", "0", "5", "20", "50", 1, None),
]

RECIPES: dict[str, list[tuple[str, str]]] = {
    "TABLETOP-OAK": [("OAK-BOARD-40", "1.7"), ("OAK-DOWEL-8", "24"), ("WOOD-GLUE-1L", "0.2"),
                     ("SANDPAPER-120", "6")],
    "CHAIR-FRAME": [("OAK-BOARD-25", "0.45"), ("OAK-DOWEL-8", "16"), ("WOOD-GLUE-1L", "0.05"),
                    ("SANDPAPER-120", "3")],
    "SEAT-CUSHION": [("BIRCH-PLY-18", "0.2"), ("FOAM-40", "0.2"), ("FABRIC-WOOL", "0.5"),
                     ("STAPLES-10", "0.05"), ("WEBBING", "1.5")],
    "DRAWER-BOX": [("BIRCH-PLY-18", "0.6"), ("DRAWER-RUNNER", "1"), ("SCREW-4X40", "16"),
                   ("WOOD-GLUE-1L", "0.05")],
    "SHELF-PANEL": [("OAK-BOARD-25", "0.25"), ("SANDPAPER-120", "1")],
    "CARCASS-DESK": [("OAK-BOARD-25", "1.8"), ("SCREW-5X60", "24"), ("OAK-DOWEL-8", "12"),
                     ("WOOD-GLUE-1L", "0.1")],
    "BENCH-SEAT": [("OAK-BOARD-40", "0.7"), ("OAK-DOWEL-8", "8"), ("WOOD-GLUE-1L", "0.1")],
    "TABLE-DINING": [("TABLETOP-OAK", "1"), ("OAK-BOARD-40", "0.4"), ("SCREW-5X60", "16"),
                     ("OIL-HARDWAX", "0.3"), ("FELT-PAD", "4")],
    "TABLE-CAFE": [("OAK-BOARD-25", "0.6"), ("STEEL-LEG-72", "4"), ("SCREW-4X40", "16"),
                   ("LACQUER-MATT", "0.1"), ("FELT-PAD", "4")],
    "CHAIR-DINING": [("CHAIR-FRAME", "1"), ("SEAT-CUSHION", "1"), ("SCREW-4X40", "4"),
                     ("OIL-HARDWAX", "0.05"), ("FELT-PAD", "4")],
    "BENCH-OAK": [("BENCH-SEAT", "1"), ("OAK-BOARD-40", "0.3"), ("SCREW-5X60", "8"),
                  ("OIL-HARDWAX", "0.15"), ("FELT-PAD", "4")],
    "DESK-WRITING": [("CARCASS-DESK", "1"), ("DRAWER-BOX", "2"), ("HANDLE-BRASS", "2"),
                     ("OIL-HARDWAX", "0.2")],
    "BOOKSHELF-5": [("OAK-BOARD-25", "1.2"), ("SHELF-PANEL", "5"), ("SCREW-5X60", "20"),
                    ("LACQUER-MATT", "0.3")],
    "SIDEBOARD": [("OAK-BOARD-25", "2.2"), ("DRAWER-BOX", "3"), ("HANDLE-BRASS", "3"),
                  ("HINGE-35", "4"), ("OIL-HARDWAX", "0.3")],
    "STOOL-BAR": [("OAK-BOARD-25", "0.35"), ("OAK-DOWEL-8", "12"), ("LACQUER-MATT", "0.05"),
                  ("FELT-PAD", "4")],
    "COFFEE-TABLE": [("OAK-BOARD-40", "0.8"), ("OAK-DOWEL-8", "16"), ("OIL-HARDWAX", "0.15"),
                     ("FELT-PAD", "4")],
    "NIGHTSTAND": [("OAK-BOARD-25", "0.7"), ("DRAWER-BOX", "1"), ("HANDLE-BRASS", "1"),
                   ("OIL-HARDWAX", "0.1")],
    "CARE-KIT": [("OIL-HARDWAX", "0.1"), ("SANDPAPER-120", "2")],
    "SAMPLE-OAK": [("OAK-BOARD-25", "0.01"), ("OIL-HARDWAX", "0.005")],
}

# Opening stock at MAIN: sku -> (quantity, unit cost); the shop floor gets a transfer.
OPENING: dict[str, tuple[str, str]] = {
    "OAK-BOARD-25": ("95", "41.80"), "OAK-BOARD-40": ("14", "60.20"),
    "PINE-BOARD-20": ("60", "18.10"), "BIRCH-PLY-18": ("38", "24.50"),
    "OAK-DOWEL-8": ("4200", "0.11"), "SCREW-4X40": ("8600", "0.028"),
    "SCREW-5X60": ("900", "0.048"), "HINGE-35": ("160", "1.80"),
    "DRAWER-RUNNER": ("26", "6.30"), "HANDLE-BRASS": ("75", "4.10"),
    "STEEL-LEG-72": ("36", "11.20"), "FELT-PAD": ("1400", "0.075"),
    "WOOD-GLUE-1L": ("18", "6.75"), "OIL-HARDWAX": ("6", "27.40"),
    "LACQUER-MATT": ("11", "19.10"), "SANDPAPER-120": ("650", "0.33"),
    "FOAM-40": ("22", "13.80"), "FABRIC-WOOL": ("31", "21.60"),
    "WEBBING": ("240", "1.05"), "STAPLES-10": ("14", "3.10"),
    "TABLETOP-OAK": ("3", "118.00"), "CHAIR-FRAME": ("12", "26.50"),
    "SEAT-CUSHION": ("9", "22.40"), "DRAWER-BOX": ("5", "24.80"),
    "SHELF-PANEL": ("30", "10.90"), "TABLE-DINING": ("2", "210.00"),
    "CHAIR-DINING": ("14", "62.00"), "BENCH-OAK": ("3", "88.00"),
    "BOOKSHELF-5": ("2", "150.00"), "STOOL-BAR": ("7", "31.00"),
    "COFFEE-TABLE": ("1", "72.00"), "CARE-KIT": ("25", "3.40"), "SAMPLE-OAK": ("12", "0.56"),
}


# Finishes cure in the tin: they are lot-tracked with a shelf life, so the demo shows lots,
# expiry and trace; their lots are numbered by rule when nobody names one.
TRACKED = {"OIL-HARDWAX": 730, "LACQUER-MATT": 365}


class _Loader:
    def __init__(self, registry: Registry, actor: Actor) -> None:
        self.registry = registry
        self.actor = actor
        self.counts: dict[str, int] = {}

    def apply(self, tool: str, count_as: str | None = None, **args: Any) -> dict[str, Any]:
        result = self.registry.invoke(tool, {**args, "preview": False}, self.actor)
        if count_as:
            self.counts[count_as] = self.counts.get(count_as, 0) + 1
        return result


def has_data(registry: Registry, actor: Actor) -> bool:
    return bool(registry.invoke("search_items", {"limit": 1}, actor)["items"])


def load(registry: Registry, actor: Actor, *, today: date | None = None) -> dict[str, int]:
    start = today or date.today()

    def day(n: int) -> str:
        return (start + timedelta(days=n)).isoformat()

    ld = _Loader(registry, actor)
    for code, name, negative in LOCATIONS:
        ld.apply("create_location", "locations", code=code, name=name, allow_negative=negative)
    for name, email, phone in SUPPLIERS:
        ld.apply("create_supplier", "suppliers", name=name, email=email, phone=phone)
    for name, email, phone in CUSTOMERS:
        ld.apply("create_customer", "customers", name=name, email=email, phone=phone)
    for sku, name, kind, uom, buy, sell, rop, roq, lead, supplier in ITEMS:
        ld.apply("create_item", "items", sku=sku, name=name, kind=kind, uom=uom,
                 purchase_price=buy, sales_price=sell, reorder_point=rop,
                 reorder_quantity=roq, lead_time_days=lead, default_supplier=supplier,
                 **({"batch_tracked": True, "lot_numbering": "{sku}-{date}-{seq}",
                     "shelf_life_days": TRACKED[sku]} if sku in TRACKED else {}))
    for sku, components in RECIPES.items():
        ld.apply("update_recipe", "recipes", sku=sku,
                 components=[{"sku": c, "quantity": q} for c, q in components])
    ld.apply("create_stock_adjustment", location="MAIN", reason="Opening stock count",
             lines=[{"sku": s, "quantity_delta": q, "unit_cost": c}
                    for s, (q, c) in OPENING.items()])
    ld.apply("create_stock_transfer", from_location="MAIN", to_location="SHOP",
             lines=[{"sku": "SANDPAPER-120", "quantity": "150"},
                    {"sku": "WOOD-GLUE-1L", "quantity": "4"},
                    {"sku": "OAK-DOWEL-8", "quantity": "800"}])

    po = [
        ("Nordic Timber AB", day(9), [("OAK-BOARD-40", "30", "60.50"),
                                      ("OAK-BOARD-25", "40", "42.00")]),
        ("Fastenright Hardware", day(4), [("DRAWER-RUNNER", "60", "6.20"),
                                          ("SCREW-5X60", "5000", "0.045"),
                                          ("STEEL-LEG-72", "80", "11.40")]),
        ("Lacquer & Co", day(3), [("OIL-HARDWAX", "12", "27.80"),
                                  ("LACQUER-MATT", "12", "19.30")]),
        ("SoftForm Upholstery", day(12), [("FOAM-40", "30", "14.10"),
                                          ("FABRIC-WOOL", "40", "21.90")]),
    ]
    numbers = []
    for supplier, expected, lines in po:
        r = ld.apply("create_purchase_order", "purchase orders", supplier=supplier,
                     location="MAIN", expected_date=expected,
                     lines=[{"sku": s, "quantity": q, "unit_price": p} for s, q, p in lines])
        numbers.append(r["number"])
    # The hardware order arrived in part; the lacquer order is fully in.
    ld.apply("receive_purchase_order", number=numbers[1],
             lines=[{"sku": "SCREW-5X60", "quantity": "5000"},
                    {"sku": "STEEL-LEG-72", "quantity": "40"}])
    ld.apply("receive_purchase_order", number=numbers[2], batch="LC-2611-A")

    so = [
        ("Harbour View Hotel", day(10), [("TABLE-DINING", "4", "1395"),
                                         ("CHAIR-DINING", "24", "295")]),
        ("Greenleaf Offices", day(14), [("DESK-WRITING", "3", "960"),
                                        ("BOOKSHELF-5", "2", "640")]),
        ("Casa Bonita Restaurants", day(6), [("TABLE-CAFE", "10", "399"),
                                             ("STOOL-BAR", "12", "229")]),
        ("Westbrook School", day(20), [("BENCH-OAK", "4", "650")]),
        ("Online shop", day(2), [("CARE-KIT", "6", "29"), ("CHAIR-DINING", "2", "310"),
                                 ("SAMPLE-OAK", "5", "5")]),
    ]
    so_numbers = []
    for customer, due, lines in so:
        r = ld.apply("create_sales_order", "sales orders", customer=customer, location="MAIN",
                     due_date=due,
                     lines=[{"sku": s, "quantity": q, "unit_price": p} for s, q, p in lines])
        so_numbers.append(r["number"])
    ld.apply("fulfill_order", number=so_numbers[4])
    ld.apply("fulfill_order", number=so_numbers[2], lines=[{"sku": "STOOL-BAR", "quantity": "6"}])

    mo = [("CHAIR-FRAME", "12", day(3)), ("SEAT-CUSHION", "16", day(3)),
          ("CHAIR-DINING", "12", day(7)), ("TABLETOP-OAK", "2", day(5)),
          ("BENCH-SEAT", "2", day(8))]
    mo_numbers = []
    for sku, qty, due in mo:
        r = ld.apply("create_manufacturing_order", "manufacturing orders", sku=sku, quantity=qty,
                     location="MAIN", due_date=due)
        mo_numbers.append(r["number"])
    ld.apply("complete_manufacturing_order", number=mo_numbers[0], quantity="5")
    ld.apply("complete_manufacturing_order", number=mo_numbers[3])
    return ld.counts
