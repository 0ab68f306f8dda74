"""A small inventory service: stock levels per warehouse, fetched asynchronously."""
