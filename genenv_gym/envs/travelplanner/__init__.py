"""TravelPlanner (OSU-NLP-Group): the sandbox database; no environment is registered yet."""
