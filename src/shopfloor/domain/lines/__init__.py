"""What a purchase line and a sales line share: one line per item, the lots a line moves,
an open document's status moves, and copying a line whole. Below purchasing and sales,
so neither needs the other."""
