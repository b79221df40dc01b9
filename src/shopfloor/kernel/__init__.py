"""What every layer shares and nothing of ours feeds: errors, roles, numbers, words."""
