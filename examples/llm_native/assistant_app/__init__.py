"""A small question-answering assistant built on the official OpenAI client."""
