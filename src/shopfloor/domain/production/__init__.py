"""Manufacturing orders and recipes: planning, completing, consuming, scrapping."""
