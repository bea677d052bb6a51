"""qabase pipelines: build a reliable QA base from chatbot dialogue logs."""
