"""The Tk desktop client (`toadstool tk`): connect, lobby, and one table screen per game. See app.py."""
