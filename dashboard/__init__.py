"""Streamlit-side helpers shared by the pages (the library, fsengine, knows nothing of them)."""
